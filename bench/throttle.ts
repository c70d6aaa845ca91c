// `npm run bench:throttle`: the merchant API's throttle under a flood (issue 19 item 8: while one merchant floods with
// 50 connections, another merchant's signed requests keep answering). The server runs as `npm start` runs it (the
// compiled build, sandbox mode, SQLite, the default MERCHANT_API_RATE_LIMIT_PER_MINUTE, request logs at info written
// to a file). One merchant (testrest's sandbox key) floods GET /reporting/v3/report-subscriptions with autocannon over
// 50 connections for BENCH_SECONDS (default 20), from a process of its own so the flood does not slow the measuring;
// meanwhile another merchant (othermerchant's key), a well-behaved client, sends its own signed reads of the same
// route at BENCH_PROBE_PER_SECOND (default 14, within its own allowance of 1000 a minute), each signed when it is sent,
// and their latency is recorded. Three phases:
//   - baseline: the other merchant alone;
//   - flood: testrest's flood, its first calls of the minute answered, the rest refused 429 before their HMAC;
//   - forged: a flood under a key id whose allowance is not spent (testrest_acct's) with signatures that do not
//     verify: never counted (so nobody can spend another's allowance), each pays the key lookup and the HMAC and is
//     refused 401. The edge of the design, measured for the record.
// Per phase: the other merchant's p50, p99 and max and how many calls it made, the flood's rate and answers by status,
// the server's CPU. Not a test: a figure to quote, from one run on this machine (with its load average). BENCH_KEEP=1
// keeps the database and the log.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedHeaders } from '../test/support/reporting.js'
import { cpuSeconds, settled } from './cpu.js'
import { freePort } from './free-port.js'
import { deployedEnv } from './deployed.js'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 20)
const PROBE_PER_SECOND = Number(process.env['BENCH_PROBE_PER_SECOND'] ?? 14)
const CONNECTIONS = 50
const PATH = '/reporting/v3/report-subscriptions'
const HOST = 'apitest.cybersource.com'
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const SELF = fileURLToPath(import.meta.url)
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A signed GET of PATH under `key`, dated now, as the SDK sends it (without the harness's banking header). */
function signed(key: typeof TESTREST_KEY): Record<string, string> {
  const headers: Record<string, string | undefined> = { ...signedHeaders({ method: 'GET', path: PATH, host: HOST, key }), 'user-agent': 'finapi-bench/1.0' }
  delete headers['x-svc-key']
  return headers as Record<string, string>
}

interface FloodResult {
  average: number
  statuses: Record<string, number>
  errors: number
}

/** The flood, in its own process: `throttle.ts flood <url> <seconds> <valid|forged>` prints its result as JSON. */
async function flood(url: string, seconds: number, kind: string): Promise<void> {
  // Signed once: the signature stays valid for the run (its date is within five minutes), and a GET's is not
  // remembered. The forged flood names testrest_acct's key id under another merchant's secret.
  const headers = signed(kind === 'forged' ? { ...ACCT_KEY, secret: OTHER_KEY.secret } : TESTREST_KEY)
  const statuses: Record<string, number> = {}
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url: url + PATH, connections: CONNECTIONS, duration: seconds, headers }, (err: unknown, r) => (err ? reject(err as Error) : resolve(r)))
    instance.on('response', (_client, status) => void (statuses[status] = (statuses[status] ?? 0) + 1))
  })
  const out: FloodResult = { average: result.requests.average, statuses, errors: result.errors + result.timeouts }
  process.stdout.write(JSON.stringify(out) + '\n')
}

/** `finapi serve` from the compiled build with npm start's defaults; its log (info, one line per request) to a file. */
async function startFinapi(dir: string, logFile: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`, LOG_LEVEL: 'info' }
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', openSync(logFile, 'w'), 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    const ready = await request(`${url}/health/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false)
    if (ready) return { child, url }
    if (child.exitCode !== null) throw new Error(`finapi exited with ${child.exitCode}; log: ${logFile}`)
    await pause(50)
  }
}

/** The other merchant's signed reads, PROBE_PER_SECOND of them a second (one at a time), until `done()`: each call's milliseconds. */
async function probe(url: string, done: () => boolean): Promise<{ ms: number[]; failed: string[] }> {
  const ms: number[] = []
  const failed: string[] = []
  const gap = 1000 / PROBE_PER_SECOND
  for (let next = performance.now(); !done(); next += gap) {
    await pause(Math.max(0, next - performance.now()))
    const started = performance.now()
    const res = await request(url + PATH, { headers: signed(OTHER_KEY) })
    const text = await res.body.text()
    ms.push(performance.now() - started)
    if (res.statusCode !== 200) failed.push(`${res.statusCode} ${text.slice(0, 200)}`)
  }
  return { ms, failed }
}

function startFlood(url: string, kind: 'valid' | 'forged'): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'flood', url, String(SECONDS), kind], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as FloodResult) : reject(new Error(`flood exited with ${code}`))))
  })
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN
const f = (n: number) => n.toFixed(1)

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'finapi-throttle-'))
  const logFile = join(dir, 'server.log')
  const app = await startFinapi(dir, logFile)
  try {
    await settled(app.child.pid!)
    // Warm-up: 28 of the other merchant's reads (two seconds), counted in its allowance like the rest.
    let warm = 2 * PROBE_PER_SECOND
    await probe(app.url, () => warm-- <= 0)
    console.log(`\nthrottle: one key floods GET ${PATH} over ${CONNECTIONS} connections for ${SECONDS} s; othermerchant's signed reads meanwhile, ${PROBE_PER_SECOND} a second`)
    console.log(`server: npm start's build, sandbox, SQLite, MERCHANT_API_RATE_LIMIT_PER_MINUTE default (1000), log at info to ${logFile}`)
    console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
    for (const phase of ['baseline', 'flood', 'forged'] as const) {
      const cpuBefore = cpuSeconds(app.child.pid)
      const started = performance.now()
      let flooded: FloodResult | undefined
      let finished = false
      const floodDone = phase === 'baseline' ? pause(SECONDS * 1000) : startFlood(app.url, phase === 'flood' ? 'valid' : 'forged').then((r) => void (flooded = r))
      void floodDone.then(() => (finished = true))
      const other = await probe(app.url, () => finished)
      await floodDone
      const elapsed = (performance.now() - started) / 1000
      const cpu = (cpuSeconds(app.child.pid) - cpuBefore) / elapsed
      const answers = flooded ? Object.entries(flooded.statuses).sort().map(([s, n]) => `${s} × ${n}`).join(', ') : '-'
      console.log(`${phase.padEnd(8)} other merchant: ${other.ms.length} calls, p50 ${f(pct(other.ms, 0.5))} ms, p99 ${f(pct(other.ms, 0.99))} ms, max ${f(Math.max(...other.ms))} ms, ${other.failed.length} not 200${other.failed.length ? ` (first: ${other.failed[0]})` : ''}`)
      if (flooded) console.log(`         flood: ${flooded.average.toFixed(0)} req/s, answers ${answers}, ${flooded.errors} errors/timeouts`)
      console.log(`         server CPU ${f(cpu * 100)} % of a core; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
      await pause(1_000)
    }
    const log = readFileSync(logFile, 'utf8').split('\n')
    const errors = log.filter((l) => /"level":(50|60)/.test(l))
    console.log(`server log: ${log.length - 1} lines, ${(statSync(logFile).size / 1_048_576).toFixed(1)} MiB, ${errors.length} at error or fatal`)
  } finally {
    app.child.kill('SIGTERM')
    await new Promise((resolve) => app.child.once('exit', resolve))
    if (process.env['BENCH_KEEP'] !== '1') rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === 'flood') await flood(process.argv[3]!, Number(process.argv[4]), process.argv[5]!)
else await main()
