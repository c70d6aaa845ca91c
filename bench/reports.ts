// `npm run bench:reports`: a one-time TransactionRequestClass CSV report of BENCH_ROWS (default 1,000,000) rows with
// 20 fields, through a real server (the compiled build, `finapi serve`): POST /reports, generation to the stored
// gzip file (polled every 50 ms), then downloaded twice (gzip as stored, and decompressed). Against, in the same
// run: `sqlite3 -csv` exporting the same columns and rows on SQLite, and psql's `COPY (…) TO STDOUT CSV` on
// PostgreSQL (BENCH_PG_URL, e.g. postgres://postgres@127.0.0.1:55432/postgres). The transactions are generated once
// per row count and database (cached: a file in the temp folder; a database named finapi_bench_reports_<rows>).
// Peak RSS: the server's VmHWM after generating and after the downloads (its whole life, start-up included), and
// /usr/bin/time's for the baselines. BENCH_NODE_OPTIONS is passed to the server as NODE_OPTIONS; BENCH_PROFILE=<dir>
// writes a CPU profile of the server (node --cpu-prof).
// BENCH_FIELDS=all reports the reference's full TransactionRequestClass (503 fields) instead of the 20.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { request } from 'undici'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { migrate } from '../test/support/database.js'
import { storeGenerated } from '../src/reporting/transactions/generate.js'
import { signedHeaders } from '../test/support/reporting.js'
import { TRANSACTION_REQUEST_FIELDS } from '../src/reporting/report-definitions/transaction-request-fields.js'
import { freePort } from './free-port.js'
import { waitFor } from './volume.js'
import { deployedEnv } from './deployed.js'

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000)
const PG_URL = process.env['BENCH_PG_URL']
const PER_DAY = Math.min(100_000, ROWS)
const DAYS = Math.ceil(ROWS / PER_DAY)
const END = '2026-03-01'
const FROM = new Date(Date.parse(`${END}T00:00:00Z`) - (DAYS - 1) * 86_400_000).toISOString()
const TO = new Date(Date.parse(`${END}T00:00:00Z`) + 86_400_000).toISOString()
const KEY = { id: '08c94330-f618-42a3-b09d-e1e43be5efda', secret: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=', org: 'testrest' }
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
/** BENCH_FIELDS=all: the reference's full TransactionRequestClass (503 fields); otherwise these 20. */
const TWENTY_FIELDS = [
  'Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'PaymentData.CurrencyCode', 'Application.Name', 'BillTo.FirstName', 'BillTo.LastName',
  'BillTo.Email', 'BillTo.City', 'BillTo.State', 'BillTo.Zip', 'BillTo.Country', 'BillTo.Address1', 'BillTo.Phone', 'PaymentMethod.CardType',
  'PaymentMethod.AccountSuffix', 'PaymentData.AuthorizationCode', 'PaymentData.BinNumber', 'LineItems.ProductName', 'ShipTo.CompanyName',
]
const FIELDS: readonly string[] = process.env['BENCH_FIELDS'] === 'all' ? TRANSACTION_REQUEST_FIELDS : TWENTY_FIELDS
const CORE: Record<string, string> = { 'Request.RequestID': 'request_id', 'Request.TransactionDate': 'request_time', 'Request.MerchantID': 'organization_id', 'PaymentData.CurrencyCode': 'currency' }
const MB = 1024 * 1024

/** The baseline's columns: the same fields, read by the database the fastest way it has. */
function baselineSql(dialect: 'sqlite' | 'postgres'): string {
  const where = `organization_id = 'testrest' and request_time >= '${FROM}' and request_time < '${TO}'`
  const cols = FIELDS.map((f) => {
    if (CORE[f]) return `${CORE[f]} as "${f}"`
    const [g, n] = f.split('.')
    return dialect === 'sqlite' ? `json_extract(fields, '$.${g}.${n}') as "${f}"` : `j -> '${g}' ->> '${n}' as "${f}"`
  })
  if (dialect === 'sqlite') return `select ${cols.join(', ')} from transactions where ${where} order by request_time, request_id`
  return `select ${cols.join(', ')} from (select *, fields::jsonb as j from transactions where ${where} order by request_time, request_id offset 0) t`
}

async function prepare(dialect: 'sqlite' | 'postgres'): Promise<{ url: string; rows: number }> {
  let url: string
  if (dialect === 'sqlite') {
    const dir = join(tmpdir(), `finapi-bench-reports-${ROWS}`)
    mkdirSync(dir, { recursive: true })
    url = `sqlite:${join(dir, 'bench.db')}`
  } else {
    const name = `finapi_bench_reports_${ROWS}`
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    if ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 0) await admin.query(`create database ${name}`)
    await admin.end()
    const u = new URL(PG_URL!)
    u.pathname = `/${name}`
    url = u.toString()
  }
  const db: Db = openDatabase(url)
  await migrate(db)
  const have = Number((await db.kysely.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('request_time', '>=', FROM).where('request_time', '<', TO).where('organization_id', '=', 'testrest').executeTakeFirstOrThrow()).n)
  // The generator's days hold BENCH_ROWS transactions; a few (refunds, chargebacks) fall after the window.
  if (have === 0) {
    process.stdout.write(`${dialect}: generating ${ROWS} transactions once (cached for later runs)…\n`)
    await storeGenerated(db, { organizationId: 'testrest', days: DAYS, perDay: PER_DAY, seed: 'bench-reports', end: END })
  }
  // Earlier runs' reports go, so this run generates anew.
  await db.kysely.deleteFrom('report_instances').execute()
  await db.kysely.deleteFrom('report_events').execute()
  const rows = Number((await db.kysely.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('request_time', '>=', FROM).where('request_time', '<', TO).where('organization_id', '=', 'testrest').executeTakeFirstOrThrow()).n)
  await db.close()
  return { url, rows }
}

function baseline(dialect: 'sqlite' | 'postgres', url: string): { seconds: number; cpu: number; peakMb: number; bytes: number } {
  const out = join(tmpdir(), `finapi-bench-baseline-${process.pid}.csv`)
  const query = baselineSql(dialect)
  const args = dialect === 'sqlite' ? ['sqlite3', '-csv', '-header', url.slice('sqlite:'.length), query] : ['psql', url, '-X', '-q', '-c', `copy (${query}) to stdout csv header`]
  const started = performance.now()
  const res = spawnSync('sh', ['-c', `/usr/bin/time -f '%U %S %M' "$@" > ${out}`, 'sh', ...args], { encoding: 'utf8' })
  const seconds = (performance.now() - started) / 1000
  if (res.status !== 0) throw new Error(`baseline failed: ${res.stderr}`)
  const bytes = statSync(out).size
  rmSync(out)
  const [user, system, peakKb] = res.stderr.trim().split('\n').at(-1)!.split(' ').map(Number)
  // CPU seconds: on a shared machine they move far less than the wall time (psql's own only; the server's are its backend's).
  return { seconds, cpu: user! + system!, peakMb: peakKb! / 1024, bytes }
}

/** The process's CPU seconds so far (user + system), from /proc. */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
const vm = (pid: number, field: string) => Number(/(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? 0) / 1024

async function ours(url: string) {
  // BENCH_PROFILE=<dir>: a CPU profile of the server's whole life (node --cpu-prof), written when it stops.
  const profile = process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir', process.env['BENCH_PROFILE']] : []
  // Its log at info to a file, as a deployment's (it was LOG_LEVEL=warn to stdout before 2026-11-26); removed at the end.
  const logs = mkdtempSync(join(tmpdir(), 'finapi-bench-reports-log-'))
  const port = await freePort()
  const child = spawn(process.execPath, [...profile, BIN, 'serve'], { env: { ...deployedEnv(), PATH: process.env['PATH'], MODE: 'sandbox', DATABASE_URL: url, PORT: String(port), JOBS_POLL_MS: '50', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000', ...(process.env['BENCH_NODE_OPTIONS'] ? { NODE_OPTIONS: process.env['BENCH_NODE_OPTIONS'] } : {}) }, stdio: ['ignore', openSync(join(logs, 'finapi.log'), 'a'), 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/health/ready`, child)
  const call = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const signed = Object.fromEntries(Object.entries(signedHeaders({ method, path, body, key: KEY })).filter(([, v]) => v !== undefined))
    return request(base + path, { method: method as 'GET', body, headers: { ...signed, ...headers } })
  }
  try {
    const body = JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportName: `bench ${Date.now()}`, reportFields: FIELDS, timezone: 'GMT', reportStartTime: FROM, reportEndTime: TO })
    const started = performance.now()
    const cpuBefore = cpuSeconds(child.pid!)
    const created = await call('POST', '/reporting/v3/reports', body)
    if (created.statusCode !== 201) throw new Error(`POST /reports: ${created.statusCode} ${await created.body.text()}`)
    await created.body.dump()
    const detail = created.headers['location'] as string
    let status = ''
    while (status !== 'COMPLETED') {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const res = await call('GET', detail)
      status = ((await res.body.json()) as { reportStatus: string }).reportStatus
      if (status === 'ERROR' || status === 'NO_DATA') throw new Error(`report ended ${status}`)
    }
    const generation = (performance.now() - started) / 1000
    const generationCpu = cpuSeconds(child.pid!) - cpuBefore
    const afterGeneration = vm(child.pid!, 'VmHWM')
    // Printed now too: a download that fails still leaves the generation's figures.
    process.stdout.write(`  (generated in ${generation.toFixed(2)} s; server peak RSS ${afterGeneration.toFixed(0)} MB)\n`)
    const name = JSON.parse(body).reportName as string
    const path = `/reporting/v3/report-downloads?reportName=${encodeURIComponent(name)}&reportDate=${END}`
    const fetchAll = async (headers: Record<string, string>) => {
      const t0 = performance.now()
      const res = await call('GET', path, undefined, headers)
      let bytes = 0
      for await (const chunk of res.body) bytes += (chunk as Buffer).length
      return { seconds: (performance.now() - t0) / 1000, bytes }
    }
    const gzip = await fetchAll({ 'accept-encoding': 'gzip' })
    const plain = await fetchAll({})
    return { generation, generationCpu, gzip, plain, afterGeneration, peakMb: vm(child.pid!, 'VmHWM'), rssMb: vm(child.pid!, 'VmRSS') }
  } finally {
    child.kill('SIGTERM')
    // The profile is written as the server exits.
    if (profile.length) await new Promise((resolve) => child.once('exit', resolve))
    rmSync(logs, { recursive: true, force: true })
  }
}

const fmt = (n: number, d = 2) => n.toFixed(d)
const only = process.env['BENCH_DIALECTS']?.split(',')
for (const dialect of (['sqlite', ...(PG_URL ? ['postgres' as const] : [])] as const).filter((d) => !only || only.includes(d))) {
  const { url, rows } = await prepare(dialect)
  const base = baseline(dialect, url)
  const run = await ours(url)
  const label = dialect === 'sqlite' ? 'sqlite3 -csv' : 'COPY … TO STDOUT CSV'
  process.stdout.write(
    [
      `\n${dialect}, ${rows} rows × ${FIELDS.length} fields (${fmt(run.plain.bytes / MB, 1)} MB of CSV, ${fmt(run.gzip.bytes / MB, 1)} MB stored gzip)`,
      `  ${label.padEnd(34)} ${fmt(base.seconds)} s, peak RSS ${fmt(base.peakMb, 0)} MB (${fmt(base.bytes / MB, 1)} MB written)`,
      `  finapi POST → stored file          ${fmt(run.generation)} s (${fmt(run.generation / base.seconds)}× the baseline)`,
      `  CPU seconds, finapi's server / the baseline's client  ${fmt(run.generationCpu)} / ${fmt(base.cpu)} (${fmt(run.generationCpu / base.cpu)}×)`,
      `  download, gzip as stored            ${fmt(run.gzip.seconds)} s: ${fmt(run.gzip.bytes / MB / run.gzip.seconds, 0)} MB/s sent, ${fmt(run.plain.bytes / MB / run.gzip.seconds, 0)} MB/s of CSV`,
      `  download, decompressed              ${fmt(run.plain.seconds)} s: ${fmt(run.plain.bytes / MB / run.plain.seconds, 0)} MB/s`,
      `  server peak RSS (VmHWM, whole life) ${fmt(run.afterGeneration, 0)} MB after generating, ${fmt(run.peakMb, 0)} MB after the downloads; RSS then ${fmt(run.rssMb, 0)} MB`,
    ].join('\n') + '\n',
  )
}
process.exit(0)
