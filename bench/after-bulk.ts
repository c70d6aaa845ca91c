// `npm run bench:after-bulk`: does bulk work leave the server slower for what follows? Two finapis as `npm start` runs
// them (the compiled build, sandbox mode, request logs at info to a file) on one fresh database: the first generates
// the sandbox's data at start-up (what every fresh `npm start` does; a large report or an import is the same kind of
// work), the second starts on the data it left and does none. Once both are idle, each serves the same fixed rate of
// any-string `GET /v2/accounts` (BENCH_RATE, default 5,000 a second, 50 connections, BENCH_SECONDS each, default 5),
// both at once, BENCH_ROUNDS times (default 4), most of it refused by the throttle at npm start's defaults
// (BENCH_THROTTLE=raised lifts it); it prints each one's CPU per request (the process, and its main thread
// alone), their ratio, and V8's collections over the measured seconds (node's --trace-gc, in each server's log).
// A ratio near 1, and neither server with young pauses of several milliseconds or a full collection a second, is the
// goal. BENCH_NODE_ARGS is given to both servers' node (`--allocation-site-pretenuring` gives back V8's default, which
// `finapi serve` turns off: with it, one server of the two went that way in two runs of four, 1.32 and 0.85). On
// SQLite; with BENCH_PG_URL on a fresh PostgreSQL database after.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { cpuSeconds, mainThreadCpuSeconds, settled } from './cpu.js'
import { freePort } from './free-port.js'
import { freshDatabase, onEachDatabase, percentile, waitFor } from './volume.js'
import { benchNodeArgs, deployedEnv } from './deployed.js'

const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4)
const RATE = Number(process.env['BENCH_RATE'] ?? 5000)
const NODE_ARGS = benchNodeArgs()
const PG_URL = process.env['BENCH_PG_URL']
const HEADERS = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-bench/1.0', authorization: 'any-string-at-all' }

interface Server {
  name: string
  child: ChildProcess
  url: string
  log: string
}

await onEachDatabase(import.meta.url, PG_URL, async (target) => {
  const database = await freshDatabase(target, 'after_bulk', PG_URL)
  const logs = mkdtempSync(join(tmpdir(), 'finapi-bench-log-'))
  const servers: Server[] = []
  // A run that fails half-way still ends its servers and removes its log folder and SQLite file (a PostgreSQL
  // database only in the `finally` below: nothing asynchronous runs at exit).
  process.on('exit', () => {
    for (const { child } of servers) if (child.exitCode === null) child.kill('SIGTERM')
    rmSync(logs, { recursive: true, force: true })
    if (target === 'sqlite') void database.drop()
  })
  const start = async (name: string): Promise<Server> => {
    const port = await freePort()
    const log = join(logs, `${name}.log`)
    // npm start's defaults, the throttle too: past its allowance most of the load is refused (429), and that path is
    // where the difference showed (with the throttle raised, the 200s of the same read did not differ).
    const throttle = process.env['BENCH_THROTTLE'] === 'raised' ? { RATE_LIMIT_PER_MINUTE: '100000000' } : {}
    const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: database.url, ...throttle }
    const child = spawn(process.execPath, ['--trace-gc', ...NODE_ARGS, BIN, 'serve'], { env, stdio: ['ignore', openSync(log, 'a'), 'inherit'] })
    const server = { name, child, url: `http://127.0.0.1:${port}`, log }
    servers.push(server)
    await waitFor(`${server.url}/health/ready`, child)
    await settled(child.pid!)
    return server
  }
  try {
    // One after the other: the second must find the data the first generated, and so do none of that work itself.
    const bulk = await start('generated the data')
    const quiet = await start('restarted on it')
    const gcLines = (s: Server) => readFileSync(s.log, 'utf8').split('\n').filter((l) => l.includes(' ms: '))
    const median = (xs: number[]) => percentile(xs, 50)
    console.log(`\n${target}: any-string GET /v2/accounts, ${RATE} requests a second to each, both at once, ${SECONDS} s after 2 s of warm-up${NODE_ARGS.length ? `, node ${NODE_ARGS.join(' ')}` : ''}`)
    const rows: Record<string, { cpu: number[]; main: number[]; scavengeMs: number[]; scavenges: number; fullGcs: number; refused: number; rss: number }> = {}
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [quiet, bulk] : [bulk, quiet]
      const drive = (s: Server, duration: number) => autocannon({ url: `${s.url}/v2/accounts?v=1`, connections: 50, duration, headers: HEADERS, overallRate: RATE })
      await Promise.all(order.map((s) => drive(s, 2)))
      const before = order.map((s) => ({ cpu: cpuSeconds(s.child.pid), main: mainThreadCpuSeconds(s.child.pid), gc: gcLines(s).length }))
      const results = await Promise.all(order.map((s) => drive(s, SECONDS)))
      order.forEach((s, i) => {
        const { requests, errors, non2xx } = results[i]!
        if (errors) throw new Error(`${s.name}: ${errors} errors`)
        const total = requests.total
        const gc = gcLines(s).slice(before[i]!.gc)
        const scavenges = gc.filter((l) => l.includes('Scavenge'))
        const row = (rows[s.name] ??= { cpu: [], main: [], scavengeMs: [], scavenges: 0, fullGcs: 0, refused: 0, rss: 0 })
        row.refused += non2xx
        row.cpu.push(((cpuSeconds(s.child.pid) - before[i]!.cpu) * 1e6) / total)
        row.main.push(((mainThreadCpuSeconds(s.child.pid) - before[i]!.main) * 1e6) / total)
        // "Scavenge 59.5 (96.8) -> 54.7 (96.8) MB, 8.35 / 0.01 ms": the pause is the first figure after "MB,".
        row.scavengeMs.push(...scavenges.map((l) => Number(/MB, ([\d.]+) \//.exec(l)?.[1])))
        row.scavenges += scavenges.length
        row.fullGcs += gc.filter((l) => l.includes('Mark-Compact')).length
        row.rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))?.[1]) / 1024
      })
    }
    const [b, q] = [rows[bulk.name]!, rows[quiet.name]!]
    for (const [name, r] of Object.entries(rows)) {
      console.log(`  ${name.padEnd(20)} CPU µs/request ${median(r.cpu).toFixed(0)} (main thread ${median(r.main).toFixed(0)}); young collections ${r.scavenges}, median pause ${median(r.scavengeMs).toFixed(2)} ms; full collections ${r.fullGcs}; RSS ${r.rss.toFixed(0)} MB; refused ${r.refused}`)
    }
    const ratios = b.cpu.map((x, i) => x / q.cpu[i]!)
    const mainRatios = b.main.map((x, i) => x / q.main[i]!)
    console.log(`  CPU per request, generated / restarted: ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}); main thread ${median(mainRatios).toFixed(2)}`)
  } finally {
    for (const { child } of servers) {
      child.kill('SIGTERM')
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)))
    }
    await database.drop()
    rmSync(logs, { recursive: true, force: true })
  }
})
