// `npm run bench`: the server as `npm start` runs it (the compiled build, sandbox mode, lenient tokens, request logs
// at info to stdout — here a file, as a deployment's — with only the throttle raised) against a raw node:http server
// answering the same bytes, in one run on this machine, for the banking reads: GET /v2/accounts with an arbitrary
// Authorization string (the sandbox's any-string customer) and with a real session token, GET /v2/account/{token};
// and the reporting reads (issue 20, target 1), HTTP-signed with the sandbox key of `testrest`: the definitions, one
// definition, the subscription list (one stored), a report's details and the report search (one report queued);
// the subscription list also under an OAuth bearer token (client_credentials) and under the SDK's HS256 JWT (a fresh
// token per request, as the SDK sends: a JWT is spent on its second use, so the raw server gets the same). Each runs
// in its own process; autocannon drives each with 50 connections for BENCH_SECONDS (default 10) after a 2 s
// warm-up, raw and finapi alternating BENCH_ROUNDS times (default 5), once finapi has finished its start-up work;
// the table gives the medians. Quote the ratios, not absolute numbers. BENCH_AGAINST=request-log compares finapi
// with its request log on against finapi with it off (REQUEST_LOG=off) instead of the raw server; BENCH_FLOOR=1 also
// measures a bare Fastify app answering the same bytes with one log line per request (the stack's floor). On SQLite;
// with BENCH_PG_URL (an admin URL, e.g. postgres://postgres@127.0.0.1:55432/postgres) on a fresh PostgreSQL database
// after.
// BENCH_RATE=<requests a second> sends at that fixed rate instead of as fast as the server answers: below both
// servers' capacity, each serves the same load, and their CPU per request compares what each costs without the
// load generator's share of this machine's cores in the figure (it starves when a server's threads take more CPU).
// BENCH_TOGETHER=1 drives both at once instead of alternating, which the request log's figures need (see below).
// BENCH_PIN=1 (Linux, two cores or more) keeps each server's event loop on the last core and everything else (its
// other threads: the request log's writer, libuv's pool, V8's helpers; and this script, the load generator) on the
// others, set again each round before it is measured: work done off the request's path then takes no time from it.
// BENCH_PIN=apart (with BENCH_TOGETHER=1) gives each server's event loop a core of its own instead, the two swapping
// cores each round, and leaves every other thread and this script free: pinned to one core, the two event loops took
// turns on it and each found the caches full of the other's data, which made every line of code dearer (the request
// log's own functions about ten times what a script measures them at; docs/benchmarks.md, "The request log's cost").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'
import { TESTREST_KEY, signedHeaders } from '../test/support/reporting.js'
import { makeJwt } from '../test/support/reporting-jwt.js'
import { cpuSeconds, mainThreadCpuSeconds, settled } from './cpu.js'
import { freePort } from './free-port.js'
import { freshDatabase, onEachDatabase } from './volume.js'
import { benchNodeArgs, deployedEnv } from './deployed.js'

// The sandbox's reporting client of testrest (README, "Sandbox identities"; test/support/reporting-oauth.ts).
const MERCHANT_CLIENT = { clientId: 'testrest-reporting', secret: '8Pp0fzAtKI3DkayhQHM+snVm7+GtqaLYZaB03ZH+HAk=' }

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
// Five alternations: on a shared machine one round in three or four is off by a fifth either way.
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5)
const CONNECTIONS = 50
/** BENCH_RATE: requests a second across the connections (autocannon's overallRate); unset, as fast as answered. */
const RATE = process.env['BENCH_RATE'] === undefined ? undefined : Number(process.env['BENCH_RATE'])
/**
 * BENCH_TOGETHER=1 drives both servers at once, each with its own 50 connections (at BENCH_RATE each, if set): a slow
 * spell of the shared machine (rounds a few seconds apart differed by a third, the same build against itself) then
 * falls on both. Compare their CPU per request: their throughputs are both bounded by this one load generator.
 */
const TOGETHER = process.env['BENCH_TOGETHER'] === '1'
const PIN = process.env['BENCH_PIN'] === '1' || process.env['BENCH_PIN'] === 'apart'
const APART = process.env['BENCH_PIN'] === 'apart'
/** Counted before pinning: pinned, this process's count is its own cores'. */
const CORES = availableParallelism()
if (PIN && CORES < 2) throw new Error('BENCH_PIN needs two cores or more')
// Alone, each server would be pinned to the first core in turn: the comparison needs both at once.
if (APART && !TOGETHER) throw new Error('BENCH_PIN=apart needs BENCH_TOGETHER=1')

/** BENCH_PIN: a server's main thread (its id is the process's) on the last core, its other threads and this script elsewhere. */
function pin(pids: number[]): void {
  const last = CORES - 1
  const others = last === 1 ? '0' : `0-${last - 1}`
  const set = (cpus: string, ids: number[]) => {
    for (const id of ids) {
      const r = spawnSync('taskset', ['-p', '-c', cpus, String(id)], { encoding: 'utf8' })
      if (r.status !== 0) throw new Error(`taskset -p -c ${cpus} ${id}: ${r.stderr || r.error?.message}`)
    }
  }
  if (APART) {
    const all = `0-${last}`
    set(all, readdirSync('/proc/self/task').map(Number))
    pids.forEach((pid, i) => {
      set(String(i % CORES), [pid])
      set(all, readdirSync(`/proc/${pid}/task`).map(Number).filter((tid) => tid !== pid))
    })
    return
  }
  set(others, readdirSync('/proc/self/task').map(Number))
  for (const pid of pids) {
    set(String(last), [pid])
    set(others, readdirSync(`/proc/${pid}/task`).map(Number).filter((tid) => tid !== pid))
  }
}
/** BENCH_VERBOSE=1 prints every round, to see the spread behind the medians. */
const VERBOSE = process.env['BENCH_VERBOSE'] === '1'
/** BENCH_ONLY=<substring>[,<substring>…] measures only the reads whose name contains one of them. */
const ONLY = process.env['BENCH_ONLY']
const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const BASE_HEADERS = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-bench/1.0' }

/** Where finapi's log lines go (one per request): a file, as a deployment's do (BENCH_LOG changes it, e.g. /dev/null). */
/** Its own folder unless BENCH_LOG names the file (then kept): a run's log at info is about a gigabyte, deleted at the end. */
const LOG_DIR = process.env['BENCH_LOG'] === undefined ? mkdtempSync(join(tmpdir(), 'finapi-bench-log-')) : undefined
const LOG = process.env['BENCH_LOG'] ?? join(LOG_DIR!, 'finapi.log')

/**
 * BENCH_AGAINST=request-log: instead of the raw server, the baseline is a second finapi with REQUEST_LOG=off on the
 * same database (so it serves the same rows and accepts the same tokens), to measure what the request log costs.
 */
const AGAINST_LOG_OFF = process.env['BENCH_AGAINST'] === 'request-log'
/**
 * BENCH_FLOOR=1: a third server each round, the same answers from a bare Fastify app logging one line per request
 * through pino to a file (`bench/server.ts fastify`): the floor of finapi's stack, what any Fastify service pays
 * before its own work. Its line gives its rate against raw and finapi's against it.
 */
const FLOOR = process.env['BENCH_FLOOR'] === '1'
const PG_URL = process.env['BENCH_PG_URL']
// Each database in a process of its own (this script again, BENCH_TARGET naming it).
if (process.env['BENCH_TARGET'] === undefined && PG_URL) {
  await onEachDatabase(import.meta.url, PG_URL, async () => undefined)
  if (LOG_DIR) rmSync(LOG_DIR, { recursive: true, force: true })
  process.exit()
}
const TARGET = process.env['BENCH_TARGET'] ?? 'sqlite'
const database = await freshDatabase(TARGET, 'gateway', PG_URL)
const DATABASE_URL = database.url
/**
 * Every server started: those a failed run leaves behind (a start-up that failed, before the `finally` below) are
 * ended when this script exits, and its log and SQLite file removed (a PostgreSQL database is dropped by the `finally`
 * only: nothing asynchronous runs at exit).
 */
const children: ChildProcess[] = []
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  if (LOG_DIR) rmSync(LOG_DIR, { recursive: true, force: true })
  if (TARGET === 'sqlite') void database.drop()
})

/** `finapi serve` from the compiled build with npm start's defaults, its log lines (one per request) to a file. */
interface Server {
  child: ChildProcess
  url: string
}

async function startFinapi(extra: Record<string, string> = {}): Promise<Server> {
  const port = await freePort()
  const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL, RATE_LIMIT_PER_MINUTE: '100000000', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000', ...extra }
  // BENCH_PROFILE=<dir>: a CPU profile of finapi's whole run (node --cpu-prof), written when it stops.
  const profile = process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir', process.env['BENCH_PROFILE']] : []
  // BENCH_NODE_ARGS: more of node's flags for finapi (say --perf-basic-prof, for `perf record` of the process).
  const nodeArgs = benchNodeArgs()
  const child = spawn(process.execPath, [...nodeArgs, ...profile, BIN, 'serve'], { env, stdio: ['ignore', openSync(LOG, 'a'), 'inherit'] })
  children.push(child)
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    const ready = await request(`${url}/health/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false)
    if (ready) return { child, url }
    if (child.exitCode !== null) throw new Error(`finapi exited with ${child.exitCode}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function start(mode: 'raw' | 'fastify', env: Record<string, string> = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    children.push(child)
    child.stdout!.on('data', (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1]
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` })
    })
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })
}

async function fetchJson(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await request(url, { method: (init.method ?? 'GET') as 'GET', headers: { ...BASE_HEADERS, ...init.headers }, body: init.body })
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${text}`)
  return text
}

async function drive(url: string, headers: Record<string, string>, duration: number, perRequest?: () => Record<string, string>) {
  // autocannon rebuilds a request for every send only when the request itself has a setupRequest.
  const requests = perRequest ? [{ setupRequest: (req: object) => ({ ...req, headers: perRequest() }) }] : undefined
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers, ...(requests ? { requests } : {}), ...(RATE ? { overallRate: RATE } : {}) })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total }
}

if (AGAINST_LOG_OFF) {
  // The sandbox's data is generated by a finapi that then stops, so that neither compared server has done that work:
  // the one that had, the same build with the log off as the other, took 1.17–1.18 times its CPU per signed read in
  // rounds run both at once (its event loop 1.03–1.06 times: the rest its other threads', over the heap it left).
  // (V8's pretenuring after bulk work is one way a server that generated ends up dearer: docs/benchmarks.md.)
  const prepare = await startFinapi({ REQUEST_LOG: 'off' })
  await settled(prepare.child.pid!)
  prepare.child.kill('SIGTERM')
  await new Promise((r) => (prepare.child.exitCode === null ? prepare.child.once('exit', r) : r(undefined)))
}
// BENCH_APP_LOG=off (with BENCH_AGAINST=request-log): both servers without the log, to see the method's own spread.
// Against the log off, both start at once and are asked the same, so that only the log tells them apart.
const [app, logOff] = AGAINST_LOG_OFF
  ? await Promise.all([startFinapi({ REQUEST_LOG: process.env['BENCH_APP_LOG'] ?? 'on' }), startFinapi({ REQUEST_LOG: 'off' })])
  : [await startFinapi(), undefined]
const login = JSON.parse(
  await fetchJson(`${app.url}/v2/auth?v=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } }),
  }),
)
const auth = { ...BASE_HEADERS, authorization: login.loginResponse.tokens[0].value as string }
const accountsBody = await fetchJson(`${app.url}/v2/accounts?v=1`, { headers: auth })
const accountToken = JSON.parse(accountsBody).accountsResponse.accounts[0].accountToken as string

/** HTTP Signature headers as the official SDK sends them (the tests' signer), with the sandbox key of `testrest`. */
function signed(method: string, path: string, host: string, body?: string): Record<string, string> {
  const headers: Record<string, string | undefined> = { ...signedHeaders({ method, path, body, host, key: TESTREST_KEY }), 'user-agent': 'finapi-bench/1.0' }
  delete headers['x-svc-key']
  return headers as Record<string, string>
}
const appHost = new URL(app.url).host
const subscription = JSON.stringify({
  reportDefinitionName: 'TransactionRequestClass',
  reportFields: ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID'],
  reportMimeType: 'application/xml',
  reportFrequency: 'DAILY',
  reportName: 'bench-daily',
  timezone: 'America/Los_Angeles',
  startTime: '0900',
})
const put = await request(`${app.url}/reporting/v3/report-subscriptions`, { method: 'PUT', headers: signed('PUT', '/reporting/v3/report-subscriptions', appHost, subscription), body: subscription })
if (put.statusCode !== 200) throw new Error(`PUT report-subscriptions answered ${put.statusCode}: ${await put.body.text()}`)
await put.body.dump()
// The signature covers the date, which must stay within 5 minutes of the server's clock: signed afresh each round.
const signedGet = (path: string) => () => signed('GET', path, appHost)

// One report queued (its details and the search find it), one OAuth token, and the SDK's HS256 JWTs.
const oneTime = JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID', 'Request.TransactionDate'], reportMimeType: 'text/csv', reportName: 'bench-once', timezone: 'GMT', reportStartTime: '2026-01-01T00:00:00Z', reportEndTime: '2026-01-02T00:00:00Z' })
const created = await request(`${app.url}/reporting/v3/reports`, { method: 'POST', headers: signed('POST', '/reporting/v3/reports', appHost, oneTime), body: oneTime })
if (created.statusCode !== 201) throw new Error(`POST reports answered ${created.statusCode}: ${await created.body.text()}`)
await created.body.dump()
const reportPath = String(created.headers['location'])
const searchPath = `/reporting/v3/reports?startTime=2025-12-01T00:00:00Z&endTime=2026-02-01T00:00:00Z&timeQueryType=reportTimeFrame`
const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: MERCHANT_CLIENT.clientId, client_secret: MERCHANT_CLIENT.secret, scope: 'reporting' }).toString()
const oauth = JSON.parse(await fetchJson(`${app.url}/oauth2/v3/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form })) as { access_token: string }
const bearer = { authorization: `Bearer ${oauth.access_token}`, 'user-agent': 'finapi-bench/1.0' }
const jwtHeaders = (path: string) => () => ({ authorization: `Bearer ${makeJwt({ method: 'GET', path, signer: { key: TESTREST_KEY }, issuer: TESTREST_KEY.org, now: new Date() })}`, host: appHost, 'user-agent': 'finapi-bench/1.0' })

const anyString = { ...BASE_HEADERS, authorization: 'any-string-at-all' }
type Headers = Record<string, string>
const SUBSCRIPTIONS = '/reporting/v3/report-subscriptions'
const targets: { name: string; path: string; headers: Headers | (() => Headers); /** Headers made anew for every request. */ perRequest?: () => Headers }[] = [
  { name: 'accounts, any string', path: '/v2/accounts?v=1', headers: anyString },
  { name: 'accounts, real token', path: '/v2/accounts?v=1', headers: auth },
  { name: 'account/{t}, real token', path: `/v2/account/${accountToken}?v=1`, headers: auth },
  { name: 'signed definitions', path: '/reporting/v3/report-definitions', headers: signedGet('/reporting/v3/report-definitions') },
  { name: 'signed definition', path: '/reporting/v3/report-definitions/PaymentBatchDetailClass', headers: signedGet('/reporting/v3/report-definitions/PaymentBatchDetailClass') },
  { name: 'signed subscriptions', path: SUBSCRIPTIONS, headers: signedGet(SUBSCRIPTIONS) },
  { name: 'signed report details', path: reportPath, headers: signedGet(reportPath) },
  { name: 'signed report search', path: searchPath, headers: signedGet(searchPath) },
  { name: 'OAuth subscriptions', path: SUBSCRIPTIONS, headers: bearer },
  { name: 'JWT subscriptions', path: SUBSCRIPTIONS, headers: jwtHeaders(SUBSCRIPTIONS), perRequest: jwtHeaders(SUBSCRIPTIONS) },
]
await Promise.all([app, logOff].map((server) => server && settled(server.child.pid!)))

const bodies: Record<string, string> = {}
const headersOf = (t: (typeof targets)[number]) => (typeof t.headers === 'function' ? t.headers() : t.headers)
for (const t of targets) bodies[t.path] = await fetchJson(app.url + t.path, { headers: headersOf(t) })
if (logOff) for (const t of targets) await fetchJson(logOff.url + t.path, { headers: headersOf(t) })
const raw = logOff ?? (await start('raw', { RAW_BODIES: JSON.stringify(bodies) }))
const floor = FLOOR ? await start('fastify', { RAW_BODIES: JSON.stringify(bodies), FLOOR_LOG: `${LOG}.fastify` }) : undefined

try {
  console.log(`\n${CONNECTIONS} connections${RATE ? `, ${RATE} requests a second` : ''}${TOGETHER ? ' to each server, both at once' : ''}${APART ? ', event loops pinned to a core each (swapped each round)' : PIN ? ', event loops pinned to the last core' : ''}, ${SECONDS} s each after a 2 s warm-up, 127.0.0.1, ${TARGET === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, npm start's defaults, logs to ${LOG}`)
  if (AGAINST_LOG_OFF) console.log('baseline ("raw" below): finapi with REQUEST_LOG=off on the same database; "finapi": the request log on')
  if (floor) console.log('each read\'s second line: a bare Fastify app with one pino line per request (bench/server.ts fastify), its rate against raw, finapi\'s against it')
  console.log('read                      raw req/s  finapi req/s  ratio   finapi p50 ms  p99 ms  (raw p99)')
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const t of targets.filter((x) => !ONLY || ONLY.split(',').some((only) => x.name.includes(only)))) {
    const runs: { r: Awaited<ReturnType<typeof drive>>; a: Awaited<ReturnType<typeof drive>>; rCpu: number; aCpu: number; rMain: number; aMain: number; f?: { rps: number; p99: number; main: number } }[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const headers = headersOf(t)
      /** Drives the servers at once (one alone unless TOGETHER) and reads each one's CPU seconds around the measured part. */
      const measure = async (servers: Server[]) => {
        // Which load starts first changes each round: both at once, the first one started served a little more.
        if (round % 2 === 1) servers = [...servers].reverse()
        await Promise.all(servers.map((s) => drive(s.url + t.path, headers, 2, t.perRequest)))
        if (PIN) pin(servers.map((s) => s.child.pid!))
        const before = servers.map((s) => ({ cpu: cpuSeconds(s.child.pid!), main: mainThreadCpuSeconds(s.child.pid!) }))
        const results = await Promise.all(servers.map((s) => drive(s.url + t.path, headers, SECONDS, t.perRequest)))
        return new Map(
          servers.map((s, i) => {
            const x = results[i]!
            const perRequest = (seconds: number) => (seconds * 1e6) / x.total
            return [s, { x, cpu: perRequest(cpuSeconds(s.child.pid!) - before[i]!.cpu), main: perRequest(mainThreadCpuSeconds(s.child.pid!) - before[i]!.main) }]
          }),
        )
      }
      const measured = TOGETHER ? await measure([raw, app]) : new Map([...(await measure([raw])), ...(await measure([app]))])
      const { x: r, cpu: rCpu, main: rMain } = measured.get(raw)!
      const { x: a, cpu: aCpu, main: aMain } = measured.get(app)!
      // The floor alone, after the two: it is a comparison beside the table's, not part of it.
      const fm = floor ? (await measure([floor])).get(floor)! : undefined
      const f = fm && { rps: fm.x.rps, p99: fm.x.p99, main: fm.main }
      if (VERBOSE) console.error(`  ${t.name} round ${round + 1}: raw ${r.rps.toFixed(0)}, finapi ${a.rps.toFixed(0)}, ratio ${(a.rps / r.rps).toFixed(3)}; CPU µs/request raw ${rCpu.toFixed(0)}, finapi ${aCpu.toFixed(0)}, ratio ${(aCpu / rCpu).toFixed(3)}; main thread's ${rMain.toFixed(0)} / ${aMain.toFixed(0)}${f ? `; bare Fastify ${f.rps.toFixed(0)}, main thread's ${f.main.toFixed(0)}` : ''}`)
      runs.push({ r, a, rCpu, aCpu, rMain, aMain, ...(f ? { f } : {}) })
    }
    const [rps, aps] = [median(runs.map((x) => x.r.rps)), median(runs.map((x) => x.a.rps))]
    const ratio = median(runs.map((x) => x.a.rps / x.r.rps)).toFixed(3)
    const [p50, p99, rawP99] = [median(runs.map((x) => x.a.p50)), median(runs.map((x) => x.a.p99)), median(runs.map((x) => x.r.p99))]
    // CPU time per request (of the server's process, from /proc) moves far less than throughput on a shared machine.
    const cpu = `CPU µs/request ${median(runs.map((x) => x.rCpu)).toFixed(0)} / ${median(runs.map((x) => x.aCpu)).toFixed(0)}, ratio ${median(runs.map((x) => x.aCpu / x.rCpu)).toFixed(3)}; the main thread's ${median(runs.map((x) => x.rMain)).toFixed(0)} / ${median(runs.map((x) => x.aMain)).toFixed(0)}, ratio ${median(runs.map((x) => x.aMain / x.rMain)).toFixed(3)}`
    console.log(`${t.name.padEnd(25)} ${rps.toFixed(0).padStart(9)}  ${aps.toFixed(0).padStart(12)}  ${ratio.padStart(6)}  ${String(p50).padStart(13)}  ${String(p99).padStart(6)}  (${rawP99})  ${cpu}`)
    if (floor) {
      const floors = runs.map((x) => x.f!)
      console.log(
        `  bare Fastify ${median(floors.map((f) => f.rps)).toFixed(0)} req/s, p99 ${median(floors.map((f) => f.p99))} ms, ${median(runs.map((x) => x.f!.rps / x.r.rps)).toFixed(3)} of raw; finapi ${median(runs.map((x) => x.a.rps / x.f!.rps)).toFixed(3)} of it;` +
          ` the main thread's CPU µs/request ${median(floors.map((f) => f.main)).toFixed(0)} (raw ${median(runs.map((x) => x.rMain)).toFixed(0)}, finapi ${median(runs.map((x) => x.aMain)).toFixed(0)})`,
      )
    }
  }
  if (AGAINST_LOG_OFF) {
    // What the log wrote, and what it dropped while the database (or its thread's share of the CPU) could not keep up.
    const metrics = await (await request(`${app.url}/metrics`)).body.text()
    console.log(metrics.split('\n').filter((l) => l.startsWith('request_log_rows_total')).join('\n'))
  }
} finally {
  app.child.kill('SIGTERM')
  raw.child.kill('SIGTERM')
  floor?.child.kill('SIGTERM')
  await Promise.all([app, raw, ...(floor ? [floor] : [])].map(({ child }) => new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)))))
  await database.drop()
  if (LOG_DIR) rmSync(LOG_DIR, { recursive: true, force: true })
}
