// `npm run bench:soak`: the server as `npm start` runs it (the compiled build, sandbox mode, SQLite, request logs at
// info written to a file) under a steady mix of banking, reporting and webhook calls for SOAK_SECONDS (default 600,
// ten minutes) at SOAK_LOAD (default 0.8) of the peak rate, which is measured first with the same mix for
// SOAK_PEAK_SECONDS (default 20) at full speed. Reports RSS growth (after the first minute, so start-up and JIT are not
// counted as growth), p50/p99 of the first and the last minute and their drift, every answer's status, the server's
// error log lines, and the webhook deliveries the receiver (bench/server.ts receiver) got. Not a test: a figure to
// quote, from one run on this machine. The mix, per connection, ten calls in turn: four banking reads (a real session
// token), three signed reporting reads (subscriptions, report search, an on-demand report) and three webhook calls
// (the subscription list, a signed event publication that is delivered to the receiver, the delivery log). Every
// signed call is signed when it is sent (its date must be within 5 minutes), and each publication is unique, so a
// replay guard on signed writes never refuses one. SOAK_CONNECTIONS (default 20), SOAK_DATABASE_URL (default a fresh
// SQLite file), SOAK_KEEP=1 keeps the database and the log.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, createHmac } from 'node:crypto'
import { mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'
import { SANDBOX_REPORTING_KEYS } from '../src/applications/reporting-keys/sandbox.js'
import { cpuSeconds, settled } from './cpu.js'
import { freePort } from './free-port.js'
import { startReceiver } from './receiver.js'
import { deployedEnv } from './deployed.js'

const SOAK_SECONDS = Number(process.env['SOAK_SECONDS'] ?? 600)
const PEAK_SECONDS = Number(process.env['SOAK_PEAK_SECONDS'] ?? 20)
const LOAD = Number(process.env['SOAK_LOAD'] ?? 0.8)
const CONNECTIONS = Number(process.env['SOAK_CONNECTIONS'] ?? 20)
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const KEY = SANDBOX_REPORTING_KEYS.find((k) => k.organizationId === 'testrest')!
const HOST = 'apitest.cybersource.com'
const BANKING = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-soak/1.0' }
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

const dir = mkdtempSync(join(tmpdir(), 'finapi-soak-'))
const logFile = join(dir, 'server.log')

/** `finapi serve` from the compiled build with npm start's defaults; its log (info, one line per request) to a file. */
async function startFinapi(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const env = {
    ...deployedEnv(),
    PATH: process.env['PATH'] ?? '',
    PORT: String(port),
    DATABASE_URL: process.env['SOAK_DATABASE_URL'] ?? `sqlite:${join(dir, 'soak.db')}`,
    LOG_LEVEL: 'info',
    // The throttles are raised: the soak measures the server, not its refusals (/v2's per key, the merchant API's per
    // credential).
    RATE_LIMIT_PER_MINUTE: '100000000',
    MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000',
  }
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', openSync(logFile, 'w'), 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    const ready = await request(`${url}/health/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false)
    if (ready) return { child, url }
    if (child.exitCode !== null) throw new Error(`finapi exited with ${child.exitCode}; log: ${logFile}`)
    await pause(50)
  }
}

/** HTTP Signature headers of testrest's sandbox key, as the official SDK signs, dated now. */
function signed(method: string, path: string, body?: string): Record<string, string> {
  const date = new Date().toUTCString()
  const withBody = body !== undefined
  const digest = `SHA-256=${createHash('sha256').update(body ?? '').digest('base64')}`
  const names = withBody ? 'host date request-target digest v-c-merchant-id' : 'host date request-target v-c-merchant-id'
  const lines = [`host: ${HOST}`, `date: ${date}`, `request-target: ${method.toLowerCase()} ${path}`, ...(withBody ? [`digest: ${digest}`] : []), `v-c-merchant-id: ${KEY.organizationId}`]
  const signature = createHmac('sha256', Buffer.from(KEY.secret, 'base64')).update(lines.join('\n')).digest('base64')
  return {
    host: HOST,
    date,
    'v-c-merchant-id': KEY.organizationId,
    'user-agent': 'finapi-soak/1.0',
    signature: `keyid="${KEY.id}", algorithm="HmacSHA256", headers="${names}", signature="${signature}"`,
    ...(withBody ? { digest, 'content-type': 'application/json' } : {}),
  }
}

async function call(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const res = await request(url, { method: method as 'GET', headers, body })
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers }
}
const expectStatus = (r: { status: number; text: string }, status: number, what: string) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${r.text.slice(0, 300)}`)
}

function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return kb === undefined ? NaN : Number(kb) / 1024
}

const receiver = await startReceiver()
const app = await startFinapi()
try {
  await settled(app.child.pid!)
  const login = JSON.stringify({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } })
  const signIn = async () => {
    const r = await call(`${app.url}/v2/auth?v=1`, 'POST', { ...BANKING, 'content-type': 'application/json' }, login)
    expectStatus(r, 200, 'sign-in')
    return (JSON.parse(r.text) as { loginResponse: { tokens: { value: string }[] } }).loginResponse.tokens[0]!.value
  }
  let token = await signIn()
  // Sessions last 15 minutes: a new one every ten keeps a long soak signed in.
  const renew = setInterval(() => void signIn().then((t) => (token = t), () => {}), 10 * 60_000)
  const list = await call(`${app.url}/v2/accounts?v=1`, 'GET', { ...BANKING, authorization: token })
  expectStatus(list, 200, 'accounts')
  const accountToken = (JSON.parse(list.text) as { accountsResponse: { accounts: { accountToken: string }[] } }).accountsResponse.accounts[0]!.accountToken

  const post = (path: string, body: unknown, method = 'POST') => {
    const text = JSON.stringify(body)
    return call(`${app.url}${path}`, method, signed(method, path, text), text)
  }
  expectStatus(await post('/kms/egress/v2/keys-sym', {}), 201, 'keys-sym')
  expectStatus(await post('/notification-subscriptions/v2/webhooks', { name: 'soak', products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: `${receiver.url}/hooks` }), 201, 'webhook subscription')
  expectStatus(await post('/reporting/v3/report-subscriptions', { reportDefinitionName: 'TransactionRequestClass', reportName: 'soak-daily', reportFields: ['Request.RequestID', 'Request.TransactionDate'], timezone: 'GMT', startTime: '0900', reportFrequency: 'DAILY' }, 'PUT'), 200, 'report subscription')

  const day = 86_400_000
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate())
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const window = `startTime=${iso(today - 10 * day)}&endTime=${iso(today - 8 * day)}`
  // A one-time report over that window, for the report search to find.
  const oneTime = { reportDefinitionName: 'TransactionRequestClass', reportName: 'soak-once', reportFields: ['Request.RequestID'], timezone: 'GMT', reportStartTime: iso(today - 10 * day), reportEndTime: iso(today - 9 * day) }
  expectStatus(await post('/reporting/v3/reports', oneTime), 201, 'one-time report')
  let invoice = 0
  type Req = { name: string; method: 'GET' | 'POST'; path: string; headers?: () => Record<string, string> }
  const bank = (name: string, path: string): Req => ({ name, method: 'GET', path, headers: () => ({ ...BANKING, authorization: token }) })
  const sget = (name: string, path: string): Req => ({ name, method: 'GET', path, headers: () => signed('GET', path) })
  const mix: Req[] = [
    bank('banking accounts', '/v2/accounts?v=1'),
    sget('reporting subscriptions', '/reporting/v3/report-subscriptions'),
    bank('banking account', `/v2/account/${accountToken}?v=1`),
    sget('webhooks list', '/notification-subscriptions/v2/webhooks'),
    sget('reporting search', `/reporting/v3/reports?${window}&timeQueryType=reportTimeFrame`),
    bank('banking balance', '/v2/accounts/balance?v=1'),
    { name: 'webhooks publish', method: 'POST', path: '/webhooks/v1/events' },
    sget('reporting on-demand', `/reporting/v3/purchase-refund-details?${window}&limit=50`),
    sget('webhooks log', '/webhooks/v1/notifications?limit=20'),
    bank('banking accounts', '/v2/accounts?v=1'),
  ]
  // Each publication unique (its invoice number), signed over its own body when it is sent.
  const requests: autocannon.Request[] = mix.map((r) => ({
    method: r.method as 'GET' | 'POST',
    path: r.path,
    setupRequest: (req: autocannon.Request) => {
      if (r.name === 'webhooks publish') {
        const body = JSON.stringify({ eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: `soak-${++invoice}` } })
        return { ...req, body, headers: signed('POST', r.path, body) }
      }
      return { ...req, headers: r.headers!() }
    },
  }))

  const statuses = new Map<string, number>()
  const run = (seconds: number, rate: number | undefined, onResponse?: (ms: number) => void) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon({ url: app.url, connections: CONNECTIONS, duration: seconds, requests, ...(rate ? { overallRate: rate } : {}) }, (err: unknown, result) => (err ? reject(err as Error) : resolve(result)))
      instance.on('response', (_client, status, _bytes, ms) => {
        statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1)
        onResponse?.(ms)
      })
    })

  console.log(`\nsoak: ${CONNECTIONS} connections, a mix of 4 banking, 3 reporting and 3 webhook calls; ${process.env['SOAK_DATABASE_URL'] ? 'DATABASE_URL' : 'SQLite'}; log at info in a file`)
  await run(3, undefined)
  const peak = await run(PEAK_SECONDS, undefined)
  const target = Math.max(1, Math.round(peak.requests.average * LOAD))
  console.log(`peak: ${peak.requests.average.toFixed(0)} req/s over ${PEAK_SECONDS} s (p50 ${peak.latency.p50} ms, p99 ${peak.latency.p99} ms); soak at ${Math.round(LOAD * 100)} %: ${target} req/s for ${SOAK_SECONDS} s`)
  statuses.clear()
  await stats(receiver.url, true)

  const minutes: number[][] = []
  const rss: { at: number; mib: number }[] = []
  const started = Date.now()
  const sampler = setInterval(() => rss.push({ at: Date.now() - started, mib: rssMiB(app.child.pid!) }), 5_000)
  rss.push({ at: 0, mib: rssMiB(app.child.pid!) })
  const cpuBefore = cpuSeconds(app.child.pid)
  const soak = await run(SOAK_SECONDS, target, (ms) => (minutes[Math.floor((Date.now() - started) / 60_000)] ??= []).push(ms))
  const cpuUsed = cpuSeconds(app.child.pid) - cpuBefore
  clearInterval(sampler)
  clearInterval(renew)
  rss.push({ at: Date.now() - started, mib: rssMiB(app.child.pid!) })
  const hwm = rssMiB(app.child.pid!, 'VmHWM')

  const pct = (xs: number[], q: number) => {
    const s = [...xs].sort((a, b) => a - b)
    return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  }
  const full = minutes.filter((m, i) => m && m.length && (i + 1) * 60_000 <= SOAK_SECONDS * 1000)
  const first = full[0] ?? minutes[0] ?? []
  const last = full.at(-1) ?? minutes.at(-1) ?? []
  const afterMinute = rss.find((s) => s.at >= 60_000) ?? rss[0]!
  const end = rss.at(-1)!
  const peakRss = Math.max(...rss.map((s) => s.mib))
  await pause(2_000)
  const delivered = await stats(receiver.url)
  const log = readFileSync(logFile, 'utf8').split('\n')
  const errors = log.filter((l) => /"level":(50|60)/.test(l))
  const f = (n: number) => n.toFixed(1)
  const one = full.length < 2 ? ' (one full minute: the first is the last)' : ''
  console.log(`soak: ${soak.requests.total} requests in ${SOAK_SECONDS} s, ${soak.requests.average.toFixed(0)} req/s; server CPU ${f((cpuUsed / SOAK_SECONDS) * 100)} % of a core`)
  console.log(`  answers: ${[...statuses].sort().map(([s, n]) => `${s} × ${n}`).join(', ')}; ${soak.errors} errors, ${soak.timeouts} timeouts`)
  console.log(`  latency, first full minute: p50 ${f(pct(first, 0.5))} ms, p99 ${f(pct(first, 0.99))} ms (${first.length} answers)`)
  console.log(`  latency, last full minute:  p50 ${f(pct(last, 0.5))} ms, p99 ${f(pct(last, 0.99))} ms (${last.length} answers)${one}`)
  console.log(`  p99 drift, last minute against first: ${f(pct(last, 0.99) - pct(first, 0.99))} ms (${f((pct(last, 0.99) / pct(first, 0.99) - 1) * 100)} %)`)
  console.log(`  RSS: ${f(rss[0]!.mib)} MiB at the start, ${f(afterMinute.mib)} MiB after ${Math.round(afterMinute.at / 1000)} s, ${f(end.mib)} MiB at the end (peak sampled ${f(peakRss)}, VmHWM over the server's life ${f(hwm)}); growth after the first minute ${f(end.mib - afterMinute.mib)} MiB`)
  console.log(`  webhook deliveries: ${delivered.distinct} notifications received (${delivered.count} requests), event to first attempt p50 ${delivered.p50} ms, p99 ${delivered.p99} ms`)
  console.log(`  server log: ${log.length - 1} lines, ${(statSync(logFile).size / 1_048_576).toFixed(1)} MiB, ${errors.length} at error or fatal${errors.length ? `; first: ${errors[0]!.slice(0, 300)}` : ''}`)
} finally {
  app.child.kill('SIGTERM')
  receiver.child.kill('SIGTERM')
  await new Promise((resolve) => (app.child.exitCode !== null ? resolve(undefined) : app.child.once('exit', resolve)))
  // The database and the log (tens of MiB after ten minutes) are kept only when asked for.
  if (process.env['SOAK_KEEP'] === '1') console.log(`  kept: ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}

async function stats(url: string, reset = false): Promise<{ count: number; distinct: number; p50: number; p99: number }> {
  return (await (await request(`${url}/stats${reset ? '?reset' : ''}`)).body.json()) as { count: number; distinct: number; p50: number; p99: number }
}
