// `npm run bench:request-log`: what the request log costs the API's hot paths (issue 24: at most 5 %), counted in
// instructions instead of time. On a shared 2-core machine the timed comparison (`BENCH_AGAINST=request-log npm run
// bench`) spreads 7–10 % either way with the same build on both sides, more than the effect it looks for; the
// instructions a thread executes do not depend on what else the machine runs. valgrind's callgrind counts them per
// thread: `finapi serve` (the compiled build, npm start's defaults, its log at info to a file) runs under it with the
// counting off while it starts and warms up, then callgrind_control turns it on for exactly BENCH_REQUESTS requests
// of each read, and off again. Per read it prints the event loop's instructions per request with the log on and off
// and their ratio, and the other threads' (the log's writer among them, and V8's compiler and collector helpers).
// Rounds alternate on and off (BENCH_ROUNDS, default 2) on one database whose sandbox data a server without valgrind
// generated first. On SQLite; with BENCH_PG_URL (an admin URL) on a fresh PostgreSQL database after, whose own work,
// in its own processes, is not counted.
//
// Under valgrind the server runs about fifty times slower and its threads take turns on one core, so a read's
// counted window lasts seconds, and what the server does on its timers meanwhile would be charged to the requests,
// the more so the slower the run: the log-on server, slower under valgrind for its writer thread's turns, was charged
// about 10,000 instructions a request more of it. So the counted servers run without the job poll and housekeeping
// (about 7 million instructions a second on the idle event loop, the poll), and each read's count is followed by one
// of an idle spell, whose rate (the timers left: the deadline sweep, the settings poll, the log's interval) is taken
// off. What it does not count: the kernel's side of each request (its socket reads and
// writes, the same with the log on or off, so the ratio overstates the log's share of the request's whole cost) and
// cache misses (an instruction is an instruction). The counted servers write full batches, as a loaded server does
// (LOG_INTERVAL_MS below); at the deployed interval, valgrind's pace would put fewer calls in each. Needs valgrind
// (Debian's `valgrind` package) on PATH.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'
import { TESTREST_KEY, signedHeaders } from '../test/support/reporting.js'
import { settled } from './cpu.js'
import { benchNodeArgs, deployedEnv } from './deployed.js'
import { freePort } from './free-port.js'
import { freshDatabase, onEachDatabase } from './volume.js'

/**
 * Requests counted a read: at 4,000 a server's count moved by up to 5,000 instructions a request between rounds, and
 * the log's cost came out 4,500–10,000 a call; at 12,000, 600–2,900 between rounds and 3,400–5,100 a call (2026-11-27:
 * likely what V8 deoptimizes under load and optimizes again later, which weighs less in a longer count).
 */
const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 12_000)
const WARM_UP = Number(process.env['BENCH_WARM_UP'] ?? 4_000)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2)
const CONNECTIONS = 10
/** The idle spell whose count is taken off each read's (at its rate per second), besides the second after it. */
const IDLE_MS = 8_000
/**
 * The request log's interval for the counted servers. A server at full load fills the log's batches (1,000 calls)
 * within its 250 ms (the banking reads run at 8,000 a second and more here); under valgrind, fifty times slower, 250 ms
 * holds 25–125 calls, and each call would bear some twenty times its share of a batch's fixed costs (the thread's
 * message and answer, the batch's buffer, the timer; within the rounds' spread on 2026-11-27, docs/benchmarks.md).
 * So the counted servers write full batches, as a loaded server does; BENCH_LOG_INTERVAL_MS=250 counts the deployed
 * interval at valgrind's pace instead (a lightly loaded server's share).
 */
const LOG_INTERVAL_MS = Number(process.env['BENCH_LOG_INTERVAL_MS'] ?? 60_000)
/** BENCH_ONLY=<substring>[,<substring>…] measures only the reads whose name contains one of them. */
const ONLY = process.env['BENCH_ONLY']
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
/**
 * BENCH_NODE_ARGS: more of node's flags for finapi (say --perf-basic-prof, whose /tmp/perf-<pid>.map names the compiled
 * JavaScript in callgrind's files; node then also leaves isolate-*-v8.log files in the working directory).
 */
const NODE_ARGS = benchNodeArgs()
const BASE_HEADERS = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-bench/1.0' }

for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version'], { encoding: 'utf8' }).status !== 0) {
    console.error(`bench/request-log-instructions: ${tool} is not on PATH; install Debian's valgrind package (apt-get install valgrind)`)
    process.exit(2)
  }
}

/** BENCH_CALLGRIND_DIR=<dir>: callgrind's files (one per thread and count) kept in a folder there, for callgrind_annotate. */
const KEEP = process.env['BENCH_CALLGRIND_DIR']
const PG_URL = process.env['BENCH_PG_URL']
// Each database in a process of its own (this script again, BENCH_TARGET naming it).
if (process.env['BENCH_TARGET'] === undefined && PG_URL) {
  await onEachDatabase(import.meta.url, PG_URL, async () => undefined)
  process.exit()
}
const TARGET = process.env['BENCH_TARGET'] ?? 'sqlite'
const work = mkdtempSync(join(KEEP ?? tmpdir(), `finapi-bench-instructions-${TARGET}-`))
const LOG = join(work, 'finapi.log')
const database = await freshDatabase(TARGET, 'instructions', PG_URL)
const children: ChildProcess[] = []
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  if (KEEP === undefined) rmSync(work, { recursive: true, force: true })
  // A PostgreSQL database is dropped by the end of the run below (nothing asynchronous runs at exit).
  if (TARGET === 'sqlite') void database.drop()
})

interface Server {
  child: ChildProcess
  url: string
  /** callgrind's output files' prefix (one file per thread and dump); undefined without valgrind. */
  out?: string
}

async function startFinapi(requestLog: 'on' | 'off', underValgrind: string | undefined): Promise<Server> {
  const port = await freePort()
  // No job poll and no housekeeping under valgrind (JOBS_POLL_MS=0, PRUNE_INTERVAL_SECONDS=0): a timer's work, not a
  // request's (the poll about 7 million instructions a second on the idle event loop), varying from run to run.
  const jobs = underValgrind === undefined ? {} : { JOBS_POLL_MS: '0', PRUNE_INTERVAL_SECONDS: '0', REQUEST_LOG_INTERVAL_MS: String(LOG_INTERVAL_MS) }
  const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '100000000', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000', REQUEST_LOG: requestLog, ...jobs }
  const out = underValgrind === undefined ? undefined : join(work, `cg.${underValgrind}`)
  // Counting starts off (--instr-atstart=no: start-up and warm-up run much faster than when counted);
  // one count per thread, so the event loop's is apart from the writer's and V8's helpers'.
  const command = out === undefined ? [process.execPath, ...NODE_ARGS, BIN, 'serve'] : ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, process.execPath, ...NODE_ARGS, BIN, 'serve']
  const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', openSync(LOG, 'a'), openSync(join(work, 'valgrind.log'), 'a')] })
  children.push(child)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    const ready = await request(`${url}/health/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false)
    if (ready) return { child, url, out }
    if (child.exitCode !== null) throw new Error(`finapi exited with ${child.exitCode} (see ${join(work, 'valgrind.log')})`)
    if (Date.now() > deadline) throw new Error('finapi was not ready after ten minutes')
    await new Promise((r) => setTimeout(r, 200))
  }
}

async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM')
  if (server.child.exitCode === null) await new Promise((r) => server.child.once('exit', r))
}

function callgrind(args: string[], pid: number): void {
  const r = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} ${pid}: ${r.stderr || r.stdout}`)
}

/** Sends exactly `amount` requests, CONNECTIONS at a time; every answer must be a 200. */
async function drive(url: string, headers: Record<string, string>, amount: number): Promise<void> {
  const result = await autocannon({ url, connections: CONNECTIONS, amount, headers, timeout: 60 })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`)
}

/** The instructions (callgrind's Ir) of each thread in the dump just written: thread number → count. */
function countsOf(out: string, before: Set<string>): Map<number, number> {
  const counts = new Map<number, number>()
  const dir = join(out, '..')
  const name = out.slice(dir.length + 1)
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(name) || before.has(file)) continue
    // <out>.<dump>-<thread>; the final dump at exit has no dump number.
    const thread = Number(/-(\d+)$/.exec(file)?.[1])
    const text = readFileSync(join(dir, file), 'utf8')
    // `summary:` in the header is 0 when the dump is asked for; `totals:` at the end has the count.
    const total = /^totals: (\d+)/m.exec(text)?.[1]
    if (Number.isFinite(thread) && total !== undefined) counts.set(thread, (counts.get(thread) ?? 0) + Number(total))
  }
  return counts
}

// The sandbox's data is generated once, by a server without valgrind: neither measured server does that work.
{
  const prepare = await startFinapi('off', undefined)
  await settled(prepare.child.pid!)
  await stop(prepare)
}

async function readsOf(server: Server) {
  const body = JSON.stringify({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } })
  const login = await request(`${server.url}/v2/auth?v=1`, { method: 'POST', headers: { ...BASE_HEADERS, 'content-type': 'application/json' }, body })
  const token = ((await login.body.json()) as { loginResponse: { tokens: { value: string }[] } }).loginResponse.tokens[0]!.value
  const host = new URL(server.url).host
  // Signed when the read starts: the signature's date must stay within five minutes of the server's clock.
  const signed = (path: string) => () => {
    const headers: Record<string, string | undefined> = { ...signedHeaders({ method: 'GET', path, host, key: TESTREST_KEY }), 'user-agent': 'finapi-bench/1.0' }
    delete headers['x-svc-key']
    return headers as Record<string, string>
  }
  const reads: { name: string; path: string; headers: () => Record<string, string> }[] = [
    { name: 'accounts, any string', path: '/v2/accounts?v=1', headers: () => ({ ...BASE_HEADERS, authorization: 'any-string-at-all' }) },
    { name: 'accounts, real token', path: '/v2/accounts?v=1', headers: () => ({ ...BASE_HEADERS, authorization: token }) },
    { name: 'signed definitions', path: '/reporting/v3/report-definitions', headers: signed('/reporting/v3/report-definitions') },
    { name: 'signed subscriptions', path: '/reporting/v3/report-subscriptions', headers: signed('/reporting/v3/report-subscriptions') },
  ]
  return reads.filter((r) => !ONLY || ONLY.split(',').some((s) => r.name.includes(s)))
}

/** Counts what `run` makes the server do: the instructions of each thread, and how long (ms) counting was on. */
async function counted(pid: number, out: string, run: () => Promise<unknown>): Promise<{ counts: Map<number, number>; ms: number }> {
  const before = new Set(readdirSync(work))
  callgrind(['--zero'], pid)
  callgrind(['--instr=on'], pid)
  const start = performance.now()
  await run()
  // What the request log has buffered is written within its interval (250 ms): counted with the requests.
  await new Promise((r) => setTimeout(r, 1_000))
  callgrind(['--instr=off'], pid)
  const ms = performance.now() - start
  callgrind(['--dump'], pid)
  return { counts: countsOf(out, before), ms }
}

/** Per read: the event loop's instructions per request, and the other threads'. */
type Figures = Map<string, { loop: number; others: number }>

async function measure(requestLog: 'on' | 'off', round: number): Promise<Figures> {
  const server = await startFinapi(requestLog, `${requestLog}.${round}`)
  const pid = server.child.pid!
  const figures: Figures = new Map()
  try {
    await settled(pid)
    for (const read of await readsOf(server)) {
      const url = server.url + read.path
      // Uncounted, so V8 has compiled the path's functions the way it will keep them.
      await drive(url, read.headers(), WARM_UP)
      const window = await counted(pid, server.out!, () => drive(url, read.headers(), REQUESTS))
      // What the server does with no request (the timers left: the deadline sweep, the settings poll) runs in
      // the window too, and valgrind stretches the window to seconds: counted over an idle spell of its own and taken
      // off at its rate, so that a slower run (a busier machine, the log's own cost) is not charged more of it.
      const idle = await counted(pid, server.out!, () => new Promise((r) => setTimeout(r, IDLE_MS)))
      const perRequest = (thread: (c: Map<number, number>) => number) => (thread(window.counts) - (thread(idle.counts) * window.ms) / idle.ms) / REQUESTS
      const loop = perRequest((c) => c.get(1) ?? Number.NaN)
      if (Number.isNaN(loop)) throw new Error(`no count for the event loop's thread in ${server.out}`)
      const others = perRequest((c) => [...c].filter(([thread]) => thread !== 1).reduce((sum, [, n]) => sum + n, 0))
      figures.set(read.name, { loop, others })
      console.log(`  ${read.name}, log ${requestLog}, round ${round}: event loop ${Math.round(loop).toLocaleString('en')} instructions a request, other threads ${Math.round(others).toLocaleString('en')} (${(window.ms / 1000).toFixed(1)} s counted, idle ${Math.round(idle.counts.get(1)! / (idle.ms / 1000)).toLocaleString('en')} a second on the event loop)`)
    }
  } finally {
    await stop(server)
  }
  return figures
}

console.log(`${REQUESTS} requests a read counted after ${WARM_UP} uncounted, ${CONNECTIONS} connections, ${TARGET === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, npm start's defaults, logs to a file, the request log's interval ${LOG_INTERVAL_MS} ms, ${ROUNDS} rounds`)
const on: Figures[] = []
const off: Figures[] = []
for (let round = 1; round <= ROUNDS; round++) {
  // Alternating which goes first, so neither always runs on a fresher database.
  for (const log of round % 2 === 1 ? (['on', 'off'] as const) : (['off', 'on'] as const)) (log === 'on' ? on : off).push(await measure(log, round))
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
console.log('read                      event loop on / off (instructions a request)   ratio   other threads on / off')
for (const name of on[0]!.keys()) {
  const loopOn = median(on.map((f) => f.get(name)!.loop))
  const loopOff = median(off.map((f) => f.get(name)!.loop))
  const othersOn = median(on.map((f) => f.get(name)!.others))
  const othersOff = median(off.map((f) => f.get(name)!.others))
  const fmt = (n: number) => Math.round(n).toLocaleString('en')
  console.log(`${name.padEnd(26)}${`${fmt(loopOn)} / ${fmt(loopOff)}`.padEnd(47)}${(loopOn / loopOff).toFixed(3).padEnd(8)}${fmt(othersOn)} / ${fmt(othersOff)}`)
}
if (TARGET !== 'sqlite') await database.drop()
