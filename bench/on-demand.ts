// `npm run bench:on-demand`: the on-demand reports at volume. BENCH_ROWS (default 1,000,000) transactions for one
// merchant (testrest) over 90 days ending today are generated through the store's own path into a fresh database;
// `finapi serve` (the compiled build, sandbox mode, logs at info to a file) then answers, in one run on this machine:
//   - purchase-refund-details pages of 2,000 at offsets 0, 500,000 and the last full page (998,000 when the window
//     holds a million details; the generator's million transactions hold fewer submitted purchases and refunds),
//     each BENCH_CALLS (default 200) times: the same page again (answered from the rendered-page cache after the
//     first) and BENCH_CALLS distinct pages from that offset on (each read and rendered);
//   - a 30-day net funding, BENCH_CALLS times;
//   - the same SQL the server runs for each, every statement BENCH_CALLS times in the sqlite3 shell (`.timer on`)
//     or psql (`\timing on`), their p50s and p99s added up, and the naive SQL without the tallies (LIMIT/OFFSET
//     through the detail rows; the sums over the window's transactions), 20 times;
//   - under load (autocannon, 50 connections, BENCH_SECONDS, default 10, after a 2 s warm-up) a page and the net
//     funding against a raw node:http server answering the same bytes.
// SQLite always; PostgreSQL too with BENCH_PG_URL (e.g. postgres://postgres@127.0.0.1:55432/postgres), each in a
// process of its own. The machine is shared: quote the ratios next to the figures. The server logs at info to a file,
// as a deployment's does.
// BENCH_AGAINST=<another checkout, built>: the first-time pages only, this build's server and that one's on the same
// database, BENCH_ROUNDS (default 3) rounds of a series at each offset, the two taking turns (which goes first
// alternates), so that two builds are compared in one window of a noisy machine.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { migrate } from '../test/support/database.js'
import { freePort } from './free-port.js'
import { day, freshDatabase, onEachDatabase, percentile, storeVolume, waitFor } from './volume.js'
import { deployedEnv } from './deployed.js'

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000)
const CALLS = Number(process.env['BENCH_CALLS'] ?? 200)
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const PG_URL = process.env['BENCH_PG_URL']
const AGAINST = process.env['BENCH_AGAINST']
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
/** Runs of the naive SQL (it counts through up to a million rows each time). */
const NAIVE_CALLS = Math.min(CALLS, 20)
const KEY = { id: '08c94330-f618-42a3-b09d-e1e43be5efda', secret: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=', org: 'testrest' }
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const RAW = fileURLToPath(new URL('./server.ts', import.meta.url))

const ms = (x: number) => x.toFixed(1).padStart(7)

function signed(path: string): Record<string, string> {
  const date = new Date().toUTCString()
  const host = 'apitest.cybersource.com'
  const line = `host: ${host}\ndate: ${date}\nrequest-target: get ${path}\nv-c-merchant-id: ${KEY.org}`
  const signature = createHmac('sha256', Buffer.from(KEY.secret, 'base64')).update(line).digest('base64')
  return { host, date, 'v-c-merchant-id': KEY.org, signature: `keyid="${KEY.id}", algorithm="HmacSHA256", headers="host date request-target v-c-merchant-id", signature="${signature}"` }
}

/**
 * One call, timed from before it is signed until its body's last byte has arrived. The body is kept as bytes: decoding
 * a page's 2.4 MB into a string (what a client does next, not the server) took the client about 7 ms (a script, under
 * load) and its garbage on the same two cores, and was in the figures until 2026-11-27.
 */
async function get(url: string, path: string, retry = true): Promise<{ status: number; body: Buffer; ms: number }> {
  const start = performance.now()
  try {
    const res = await request(url + path, { headers: signed(path) })
    const body = Buffer.from(await res.body.arrayBuffer())
    return { status: res.statusCode, body, ms: performance.now() - start }
  } catch (err) {
    // A kept-alive connection the server closed while the shells ran: once more, on a new one, timed afresh.
    if (retry && ['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'].includes((err as { code?: string }).code ?? '')) return get(url, path, false)
    throw err
  }
}

async function latency(url: string, paths: string[]): Promise<{ p50: number; p99: number; bytes: number }> {
  const times: number[] = []
  let bytes = 0
  for (const path of paths) {
    const res = await get(url, path)
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.subarray(0, 300).toString()}`)
    times.push(res.ms)
    bytes = res.body.length
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes }
}

/**
 * The server's own times for these paths (the `responseTime` of its access log's lines: from the request's arrival
 * until its last byte was handed to the socket), p50 and p99, to set beside the client's: the client reads 2.4 MB a
 * page on the same two cores. The log is written asynchronously, so its lines are waited for.
 */
async function serverTimes(log: string, paths: readonly string[]): Promise<{ p50: number; p99: number }> {
  const wanted = new Set(paths)
  for (let tries = 0; ; tries++) {
    const times: number[] = []
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      // A line still being written (the file's last, cut short) is left for the next try.
      if (!line.includes('"responseTime"') || !line.endsWith('}')) continue
      const entry = JSON.parse(line) as { req?: { url?: string }; responseTime?: number }
      if (entry.req?.url !== undefined && wanted.has(entry.req.url) && entry.responseTime !== undefined) times.push(entry.responseTime)
    }
    if (times.length >= paths.length || tries === 20) return { p50: percentile(times, 50), p99: percentile(times, 99) }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Runs a statement `times` times in the dialect's own shell, output discarded, and reads its timings (ms). */
function shell(dialect: string, url: string, statement: string, times = CALLS): { p50: number; p99: number } {
  const script = dialect === 'sqlite' ? `.timer on\n.output /dev/null\n${`${statement};\n`.repeat(times)}` : `\\timing on\n\\o /dev/null\n${`${statement};\n`.repeat(times)}`
  const run = dialect === 'sqlite' ? spawnSync('sqlite3', [url.slice('sqlite:'.length)], { input: script, encoding: 'utf8', maxBuffer: 1 << 26 }) : spawnSync('psql', ['-X', '-q', url], { input: script, encoding: 'utf8', maxBuffer: 1 << 26 })
  const pattern = dialect === 'sqlite' ? /Run Time: real ([\d.]+)/g : /Time: ([\d.]+) ms/g
  const timings = [...run.stdout.matchAll(pattern)].map((m) => Number(m[1]) * (dialect === 'sqlite' ? 1000 : 1))
  if (timings.length !== times) throw new Error(`${dialect} shell: ${timings.length} timings; ${run.stderr.slice(0, 500)}`)
  return { p50: percentile(timings, 50), p99: percentile(timings, 99) }
}

async function load(url: string, path: string, duration: number) {
  const result = await autocannon({ url: url + path, connections: 50, duration, headers: signed(path) })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}${path}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

/** The seek the server makes for a page: the hour holding the offset (from the tallies) and the rows to skip in it. */
async function seek(db: Db, offset: number, from: string, to: string): Promise<{ bucket: string; skip: number; locate: string }> {
  const locate = `select bucket, sum(count) as n from transaction_tallies where organization_id = 'testrest' and tally = 'request' and bucket >= '${from}' and bucket < '${to}' group by bucket order by bucket`
  const hours = await db.kysely.selectFrom('transaction_tallies').select(['bucket', db.kysely.fn.sum<string>('count').as('n')]).where('organization_id', '=', 'testrest').where('tally', '=', 'request').where('bucket', '>=', from).where('bucket', '<', to).groupBy('bucket').orderBy('bucket').execute()
  let total = 0
  for (const h of hours) {
    if (offset < total + Number(h.n)) return { bucket: h.bucket, skip: offset - total, locate }
    total += Number(h.n)
  }
  throw new Error(`offset ${offset} is past the end (${total})`)
}

/**
 * Warm-up, unmeasured: 50 pages none of the series asks for (at a quarter of the window), so that the first series is
 * not also the one that pays for compiling the page's code and preparing its statements (it had the highest p99 in
 * every run, whatever its offset).
 */
async function warmUp(url: string, page: (offset: number) => string, total: number): Promise<void> {
  await latency(url, Array.from({ length: 50 }, (_, i) => page(Math.floor(total / 4) + i)))
}

/**
 * BENCH_AGAINST: first-time pages from two servers on one database, ROUNDS rounds of a CALLS-page series at each
 * offset, the two taking turns; a round's pages are new to both (each server has its own page cache).
 */
async function compare(servers: readonly { name: string; url: string; log: string }[], offsets: [string, number][], page: (offset: number) => string, total: number, last: number) {
  for (const { url } of servers) await warmUp(url, page, total)
  console.log(`\n${CALLS} first-time pages a series, p50 and p99 (ms) of each round: at the client | the server's own`)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [name, offset]] of offsets.entries()) {
      // From the offset on, a new stretch each round (the last page's series walks back from it).
      const paths = Array.from({ length: CALLS }, (_, i) => page(offset === last ? offset - round * CALLS - i : offset + round * CALLS + i))
      const order = (round + index) % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) {
        const r = await latency(server.url, paths)
        const own = await serverTimes(server.log, paths)
        console.log(`round ${round + 1}  ${name.padEnd(30)} ${server.name.padEnd(40).slice(0, 40)}${ms(r.p50)}${ms(r.p99)}   |${ms(own.p50)}${ms(own.p99)}`)
      }
    }
  }
}

async function run(dialect: string) {
  const database = await freshDatabase(dialect, 'od', PG_URL)
  const children: ChildProcess[] = []
  /** Temporary folders this run made (the raw server's bodies, a few MB each), removed at its end. */
  const folders: string[] = []
  try {
    const db = openDatabase(database.url)
    await migrate(db)
    await storeVolume(db, dialect, ROWS)

    // A server of a build (its bin/finapi.js), logging at info to a file in a folder removed at the end.
    const logs = mkdtempSync(join(tmpdir(), 'finapi-bench-od-log-'))
    folders.push(logs)
    const serve = async (bin: string, name: string): Promise<{ name: string; url: string; log: string }> => {
      const port = await freePort()
      const log = join(logs, `${children.length}.log`)
      const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '100000000', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000' }
      const server = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', openSync(log, 'a'), 'inherit'] })
      children.push(server)
      await waitFor(`http://127.0.0.1:${port}/health/ready`, server)
      return { name, url: `http://127.0.0.1:${port}`, log }
    }
    const finapi = await serve(BIN, 'this build')
    const url = finapi.url

    const [from, to] = [day(-89), day(1)]
    const details = await db.kysely.selectFrom('transactions').select(db.kysely.fn.countAll<string>().as('n')).where('organization_id', '=', 'testrest').where('request_time', '>=', from).where('request_time', '<', to).where('type', 'in', ['sale', 'capture', 'refund', 'credit']).where('submission_time', 'is not', null).executeTakeFirstOrThrow()
    const total = Number(details.n)
    const last = total - 2000
    const offsets: [string, number][] = [['offset 0', 0], ['offset 500,000', Math.min(500_000, last)], [total >= 1_000_000 ? 'offset 998,000' : `last page (${last.toLocaleString('en')})`, total >= 1_000_000 ? 998_000 : last]]
    console.log(`purchase-refund-details window ${from} .. ${to}: ${total.toLocaleString('en')} submitted purchases and refunds`)
    const page = (offset: number) => `/reporting/v3/purchase-refund-details?startTime=${from}&endTime=${to}&offset=${offset}&limit=2000`
    const [nfFrom, nfTo] = [day(-40), day(-10)]
    const funding = `/reporting/v3/net-fundings?startTime=${nfFrom}&endTime=${nfTo}`

    if (AGAINST !== undefined) {
      await compare([finapi, await serve(join(AGAINST, 'bin', 'finapi.js'), `against ${AGAINST}`)], offsets, page, total, last)
      await db.close()
      return
    }

    await warmUp(url, page, total)
    console.log(`\n${CALLS} sequential calls each (ms)            finapi p50  p99   | its SQL p50  p99   | naive SQL p50  p99 | server's own p50  p99`)
    // The server's series first, the shell's after them all: the naive statements read the whole table (up to a
    // second each on PostgreSQL), which left the database's caches and the machine busy for the series after them.
    const served = []
    for (const [, offset] of offsets) {
      const distinctPaths = Array.from({ length: CALLS }, (_, i) => page(offset === last ? offset - i : offset + i))
      const distinct = await latency(url, distinctPaths)
      const own = await serverTimes(finapi.log, distinctPaths)
      const same = await latency(url, Array.from({ length: CALLS }, () => page(offset)))
      served.push({ distinct, own, same })
    }
    const nf = await latency(url, Array.from({ length: CALLS }, () => funding))
    for (const [i, [name, offset]] of offsets.entries()) {
      const { distinct, own, same } = served[i]!
      // Every statement a page costs the server: its generation, the seek from the tallies, the page's detail rows.
      const at = await seek(db, offset, from, to)
      const statements = [
        `select count from transaction_tallies where organization_id = 'testrest' and tally = 'rows' and bucket = ''`,
        at.locate,
        // The page's rows as SQLite gives them to the server, one value (group_concat: the sqlite3 shell here may
        // predate its other name, string_agg); PostgreSQL's row by row.
        dialect === 'sqlite'
          ? `select cast(group_concat(sections, char(30)) as blob) from (select sections from transaction_details where organization_id = 'testrest' and request_time >= '${at.bucket}' and request_time < '${to}' order by request_time, request_id limit 2000 offset ${at.skip})`
          : `select sections from transaction_details where organization_id = 'testrest' and request_time >= '${at.bucket}' and request_time < '${to}' order by request_time, request_id limit 2000 offset ${at.skip}`,
      ].map((statement) => shell(dialect, database.url, statement))
      const theirs = { p50: statements.reduce((n, x) => n + x.p50, 0), p99: statements.reduce((n, x) => n + x.p99, 0) }
      // Without the tallies: LIMIT/OFFSET counting through every detail row before the page (fewer runs: it is slow).
      const naive = shell(dialect, database.url, `select sections from transaction_details where organization_id = 'testrest' and request_time >= '${from}' and request_time < '${to}' order by request_time, request_id limit 2000 offset ${offset}`, NAIVE_CALLS)
      const label = (x: string) => x.padEnd(43)
      console.log(`${label(`page, ${name}, distinct pages`)}${ms(distinct.p50)}${ms(distinct.p99)}   | ${ms(theirs.p50)}${ms(theirs.p99)}   | ${ms(naive.p50)}${ms(naive.p99)}  |     ${ms(own.p50)}${ms(own.p99)}`)
      console.log(`${label(`page, ${name}, same page (${(same.bytes / 2 ** 20).toFixed(1)} MiB)`)}${ms(same.p50)}${ms(same.p99)}`)
    }
    const nfSql = `select organization_id, bucket, category, payment_subtype, currency, count, amount, settled_count, funded_count, funded_amount from transaction_tallies where organization_id in ('testrest') and tally = 'funding' and bucket >= '${nfFrom.slice(0, 10)}' and bucket < '${nfTo.slice(0, 10)}'`
    // Without the tallies: the same sums over the window's rows, the fees read out of each row's fields (SQLite's
    // sum of decimal text is a float, so this is only its cost, not an exact answer).
    const fee = dialect === 'sqlite' ? `json_extract(fields, '$.Fee.TotalFeeAmount')` : `(fields::json->'Fee'->>'TotalFeeAmount')::numeric`
    const amount = dialect === 'sqlite' ? 'settlement_amount' : 'settlement_amount::numeric'
    const nfNaive = `select type, payment_subtype, settlement_currency, count(*), sum(${amount}), sum(${fee}) from transactions where organization_id = 'testrest' and funding_date >= '${nfFrom.slice(0, 10)}' and funding_date < '${nfTo.slice(0, 10)}' group by type, payment_subtype, settlement_currency`
    const nfShell = shell(dialect, database.url, nfSql)
    const nfNaiveShell = shell(dialect, database.url, nfNaive, NAIVE_CALLS)
    console.log(`${'net funding, 30 days'.padEnd(43)}${ms(nf.p50)}${ms(nf.p99)}   | ${ms(nfShell.p50)}${ms(nfShell.p99)}   | ${ms(nfNaiveShell.p50)}${ms(nfNaiveShell.p99)}`)

    // Under load: the same bytes from a raw node:http server.
    const targets = [page(offsets[1]![1]), funding]
    const bodies: Record<string, string> = {}
    for (const path of targets) bodies[path] = (await get(url, path)).body.toString()
    const bodiesDir = mkdtempSync(join(tmpdir(), 'finapi-bench-raw-'))
    folders.push(bodiesDir)
    const file = join(bodiesDir, 'bodies.json')
    writeFileSync(file, JSON.stringify(bodies))
    const raw = await new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', RAW, 'raw'], { env: { ...process.env, RAW_BODIES_FILE: file }, stdio: ['ignore', 'pipe', 'inherit'] })
      children.push(child)
      child.stdout!.on('data', (d: Buffer) => {
        const p = /PORT (\d+)/.exec(d.toString())?.[1]
        if (p) resolve({ child, url: `http://127.0.0.1:${p}` })
      })
      child.on('exit', (code) => reject(new Error(`raw server exited with ${code}`)))
    })
    console.log(`\n50 connections, ${SECONDS} s after a 2 s warm-up          raw req/s  finapi req/s  ratio  finapi p50 p99 ms`)
    for (const [name, path] of [[`page at ${offsets[1]![0]}`, targets[0]!], ['net funding, 30 days', targets[1]!]] as const) {
      await load(raw.url, path, 2)
      const r = await load(raw.url, path, SECONDS)
      await load(url, path, 2)
      const a = await load(url, path, SECONDS)
      console.log(`${name.padEnd(46)}${r.rps.toFixed(0).padStart(9)}  ${a.rps.toFixed(0).padStart(12)}  ${(a.rps / r.rps).toFixed(2).padStart(5)}  ${String(a.p50).padStart(10)} ${String(a.p99).padStart(4)}`)
    }
    await db.close()
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 300))
    for (const folder of folders) rmSync(folder, { recursive: true, force: true })
    await database.drop()
  }
}

await onEachDatabase(import.meta.url, PG_URL, run)
