// `npm run bench:console`: every console page's answer time with BENCH_ROWS (default 1,000,000) transactions stored
// (issue 24: under 100 ms p95 on the server). testrest's transactions over the 90 days ending today are stored
// through the store's own path (bench/volume.ts); `finapi serve` (the compiled build, npm start's defaults but the
// request log on, its log lines to a file) then serves them; the benchmark signs in to the console as testrest, as a browser does, and asks
// for each page BENCH_CALLS (default 100) times in turn, one at a time, after one unmeasured request. It prints
// each page's p50, p95 and p99 as the client saw them (127.0.0.1: what the server took, plus the loopback).
// SQLite always; PostgreSQL too with BENCH_PG_URL (e.g. postgres://postgres@127.0.0.1:55432/postgres), each in a
// process of its own. BENCH_PAGES=overview,reports measures only the pages whose path contains one of the texts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { openDatabase } from '../src/platform/db/database.js'
import { migrate } from '../test/support/database.js'
import { freePort } from './free-port.js'
import { day, freshDatabase, onEachDatabase, percentile, storeVolume, waitFor } from './volume.js'
import { deployedEnv } from './deployed.js'

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000)
const CALLS = Number(process.env['BENCH_CALLS'] ?? 100)
const PG_URL = process.env['BENCH_PG_URL']
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))

/** Every page a signed-in merchant user reads (GETs; forms are measured by the pages that answer them). */
const PAGES: readonly string[] = [
  '/console',
  '/console/organization',
  '/console/overview',
  '/console/reports',
  `/console/reports?startTime=${day(-30)}&endTime=${day(1)}`,
  '/console/reports/new?definition=TransactionRequestClass',
  '/console/subscriptions',
  '/console/subscriptions/new?definition=TransactionRequestClass',
  '/console/keys',
  '/console/requests',
  '/console/on-demand',
  // A page deep in a week of purchases and refunds, and the same page as the API's CSV.
  `/console/on-demand?startTime=${day(-7)}&endTime=${day(0)}&limit=50&offset=50000`,
  `/console/on-demand/purchase-refund-details.csv?startTime=${day(-7)}&endTime=${day(0)}&limit=50&offset=50000`,
  '/console/on-demand/net-funding',
  '/console/on-demand/batch-summaries',
  `/console/on-demand/batch-summaries?startTime=${day(-89)}&endTime=${day(1)}&rollUp=week&breakdown=selected_merchant`,
  '/console/on-demand/conversions',
  '/console/on-demand/notifications-of-change',
  '/console/sandbox',
  '/console/sandbox/reset',
  '/console/webhooks',
  '/console/webhooks/new',
  '/console/webhooks/deliveries',
  '/console/webhooks/keys',
  '/console/operators',
  '/console/operators/users',
  '/console/operators/keys',
  '/console/operators/clients',
]

const cookieValue = (setCookie: string | string[] | undefined, name: string) =>
  ([setCookie ?? []].flat().map((c) => new RegExp(`^${name}=([^;]*)`).exec(c)?.[1]).find(Boolean) ?? '')

/** Signs in as a browser does: the form (its CSRF token bound to a pre-session cookie), then the POST. */
async function signIn(url: string): Promise<string> {
  const form = await request(`${url}/console/sign-in`)
  const html = await form.body.text()
  const pre = cookieValue(form.headers['set-cookie'], 'finapi_console_pre')
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? ''
  const body = new URLSearchParams({ csrf_token: token, username: 'testrest', password: 'Testrest-1' }).toString()
  const res = await request(`${url}/console/sign-in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `finapi_console_pre=${pre}` }, body })
  await res.body.dump()
  const session = cookieValue(res.headers['set-cookie'], 'finapi_console')
  if (res.statusCode !== 303 || !session) throw new Error(`console sign-in answered ${res.statusCode}`)
  return `finapi_console=${session}`
}

async function timed(url: string, path: string, cookie: string): Promise<number> {
  const start = performance.now()
  const res = await request(url + path, { headers: { cookie } })
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 300)}`)
  return performance.now() - start
}

async function run(dialect: string) {
  const database = await freshDatabase(dialect, 'console', PG_URL)
  let server: ChildProcess | undefined
  // The server's log, a file as a deployment's, in a folder of its own removed at the end.
  const logDir = mkdtempSync(join(tmpdir(), 'finapi-bench-console-log-'))
  try {
    const db = openDatabase(database.url)
    await migrate(db)
    await storeVolume(db, dialect, ROWS)
    await db.close()
    const port = await freePort()
    const log = join(logDir, 'finapi.log')
    // The request log on (off by default), so that its page has calls to show: the benchmark's own.
    const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: database.url, REQUEST_LOG: 'on' }
    server = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', openSync(log, 'a'), 'inherit'] })
    const url = `http://127.0.0.1:${port}`
    await waitFor(`${url}/health/ready`, server)
    const cookie = await signIn(url)
    // testrest an operator too, for the operators' pages (the role is read at every request).
    const grant = spawnSync(process.execPath, [BIN, 'users', 'grant-operator', 'testrest'], { env, encoding: 'utf8' })
    if (grant.status !== 0) throw new Error(`grant-operator: ${grant.stderr}`)
    const only = process.env['BENCH_PAGES']?.split(',')
    console.log(`${CALLS} sequential requests a page, ${ROWS.toLocaleString('en')} transactions, logs to ${log} (ms)`)
    console.log(`${'page'.padEnd(72)}   p50    p95    p99`)
    let worst = 0
    for (const path of PAGES.filter((p) => !only || only.some((o) => p.includes(o)))) {
      await timed(url, path, cookie)
      const times: number[] = []
      for (let i = 0; i < CALLS; i++) times.push(await timed(url, path, cookie))
      const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(times, p))
      worst = Math.max(worst, p95!)
      console.log(`${path.slice(0, 72).padEnd(72)}${[p50, p95, p99].map((x) => x!.toFixed(1).padStart(7)).join('')}`)
    }
    console.log(`slowest p95 ${worst.toFixed(1)} ms (target: under 100 ms)`)
  } finally {
    server?.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 300))
    rmSync(logDir, { recursive: true, force: true })
    await database.drop()
  }
}

await onEachDatabase(import.meta.url, PG_URL, run)
