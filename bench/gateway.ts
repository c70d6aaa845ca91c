// `npm run bench`: the server as `npm start` runs it (the compiled build, sandbox mode, lenient tokens, request logs
// at info to stdout — here /dev/null — with only the throttle raised) against a raw node:http server answering the
// same bytes, in one run on this machine, for three reads: GET /v2/accounts with an arbitrary Authorization string
// (the sandbox's any-string customer) and with a real session token, and GET /v2/account/{token}. Each server runs
// in its own process; autocannon drives each with 50 connections for BENCH_SECONDS (default 10) after a 2 s
// warm-up. Quote the ratios, not absolute numbers.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const CONNECTIONS = 50
const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const BASE_HEADERS = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-bench/1.0' }

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
    srv.on('error', reject)
  })
}

/** `finapi serve` from the compiled build with npm start's defaults, its log lines (one per request) to /dev/null. */
async function startFinapi(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const env = { PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'finapi-bench-')), 'bench.db')}`, RATE_LIMIT_PER_MINUTE: '100000000' }
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    const ready = await request(`${url}/health/ready`).then((r) => (r.body.dump(), r.statusCode === 200), () => false)
    if (ready) return { child, url }
    if (child.exitCode !== null) throw new Error(`finapi exited with ${child.exitCode}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function start(mode: 'raw', env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
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

async function drive(url: string, headers: Record<string, string>, duration: number) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

const app = await startFinapi()
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

const anyString = { ...BASE_HEADERS, authorization: 'any-string-at-all' }
const targets = [
  { name: 'accounts, any string', path: '/v2/accounts?v=1', headers: anyString },
  { name: 'accounts, real token', path: '/v2/accounts?v=1', headers: auth },
  { name: 'account/{t}, real token', path: `/v2/account/${accountToken}?v=1`, headers: auth },
]
const bodies: Record<string, string> = {}
for (const t of targets) bodies[t.path] = await fetchJson(app.url + t.path, { headers: t.headers })
const raw = await start('raw', { RAW_BODIES: JSON.stringify(bodies) })

try {
  console.log(`\n${CONNECTIONS} connections, ${SECONDS} s each after a 2 s warm-up, 127.0.0.1, SQLite, npm start's defaults`)
  console.log('read                      raw req/s  finapi req/s  ratio   finapi p50 ms  p99 ms  (raw p99)')
  for (const t of targets) {
    await drive(raw.url + t.path, t.headers, 2)
    const r = await drive(raw.url + t.path, t.headers, SECONDS)
    await drive(app.url + t.path, t.headers, 2)
    const a = await drive(app.url + t.path, t.headers, SECONDS)
    const ratio = ((a.rps / r.rps) * 100).toFixed(1) + '%'
    console.log(`${t.name.padEnd(25)} ${r.rps.toFixed(0).padStart(9)}  ${a.rps.toFixed(0).padStart(12)}  ${ratio.padStart(6)}  ${String(a.p50).padStart(13)}  ${String(a.p99).padStart(6)}  (${r.p99})`)
  }
} finally {
  app.child.kill('SIGTERM')
  raw.child.kill('SIGTERM')
}
