// `npm run bench:transactions`: generate and store BENCH_ROWS (default 1,000,000) transactions for one merchant
// through the store's own path (generator → prepared multi-row inserts, 50,000 rows per transaction), against a
// bare insert of the same rows in the same run: better-sqlite3's one prepared single-row statement in one
// transaction on SQLite; on PostgreSQL (BENCH_PG_URL, e.g. postgres://postgres@127.0.0.1:55432/postgres) a
// multi-row INSERT of 1,000 rows per statement, since pg-copy-streams (COPY) is not installed. The baseline's rows
// are generated and serialized outside its timing, a chunk at a time; only its inserts are timed. Each run uses a
// fresh database; BENCH_RUNS (default 3) runs each, medians printed. Peak RSS is sampled every 50 ms.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { migrate } from '../test/support/database.js'
import type { Transaction } from '../src/reporting/transactions/catalog.js'
import { generateTransactions, type GenerateOptions } from '../src/reporting/transactions/generator.js'
import { storeGenerated } from '../src/reporting/transactions/generate.js'

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000)
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3)
const PG_URL = process.env['BENCH_PG_URL']
const PER_DAY = 100_000
const options: GenerateOptions = { organizationId: 'benchmerchant', days: Math.ceil(ROWS / PER_DAY), perDay: Math.min(PER_DAY, ROWS), seed: 'bench', end: '2026-03-01' }

let peak = 0
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function tuple(t: Transaction): (string | null)[] {
  return [t.organizationId, t.requestId, t.type, t.requestTime, t.submissionTime ?? null, t.fundingDate ?? null, t.paymentSubtype ?? null, t.currency, t.amount, t.settlementCurrency ?? null, t.settlementAmount ?? null, t.batchId ?? null, t.decision ?? null, JSON.stringify(t.fields)]
}

function* chunks(size: number): Generator<(string | null)[][]> {
  let chunk: (string | null)[][] = []
  let n = 0
  for (const t of generateTransactions(options)) {
    if (n++ === ROWS) break
    chunk.push(tuple(t))
    if (chunk.length === size) {
      yield chunk
      chunk = []
    }
  }
  if (chunk.length) yield chunk
}

interface Target {
  name: string
  fresh(): Promise<{ db: Db; url: string; drop(): Promise<void> }>
  bare(url: string): Promise<number>
}

async function count(db: Db): Promise<number> {
  const row = await db.kysely.selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

const sqliteTarget: Target = {
  name: 'sqlite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'finapi-bench-tx-'))
    const url = `sqlite:${join(dir, 'bench.db')}`
    const db = openDatabase(url)
    await migrate(db)
    return { db, url, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  },
  async bare(url) {
    const native = new SQLite(url.slice('sqlite:'.length))
    native.pragma('journal_mode = WAL')
    native.pragma('synchronous = NORMAL')
    const insert = native.prepare(`insert into transactions values (${Array(14).fill('?').join(',')})`)
    let seconds = 0
    native.exec('begin')
    for (const chunk of chunks(10_000)) {
      const start = performance.now()
      for (const row of chunk) insert.run(row)
      seconds += (performance.now() - start) / 1000
    }
    const start = performance.now()
    native.exec('commit')
    seconds += (performance.now() - start) / 1000
    native.close()
    return seconds
  },
}

function postgresTarget(adminUrl: string): Target {
  return {
    name: 'postgres',
    async fresh() {
      const name = `bench_tx_${process.pid}_${Date.now()}`
      const admin = new pg.Client({ connectionString: adminUrl })
      await admin.connect()
      await admin.query(`create database ${name}`)
      await admin.end()
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      const db = openDatabase(url.toString())
      await migrate(db)
      return {
        db,
        url: url.toString(),
        drop: async () => {
          const c = new pg.Client({ connectionString: adminUrl })
          await c.connect()
          await c.query(`drop database if exists ${name} with (force)`)
          await c.end()
        },
      }
    },
    async bare(url) {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      const per = 1000
      const text = (n: number) => `insert into transactions values ${Array.from({ length: n }, (_, r) => `(${Array.from({ length: 14 }, (_, c) => `$${r * 14 + c + 1}`).join(',')})`).join(',')}`
      const full = text(per)
      let seconds = 0
      await client.query('begin')
      for (const chunk of chunks(per)) {
        const start = performance.now()
        await client.query(chunk.length === per ? full : text(chunk.length), chunk.flat())
        seconds += (performance.now() - start) / 1000
      }
      const start = performance.now()
      await client.query('commit')
      seconds += (performance.now() - start) / 1000
      await client.end()
      return seconds
    },
  }
}

// Each dialect runs in a process of its own, so one's peak RSS is not the other's.
const only = process.env['BENCH_TARGET']
if (only === undefined) {
  if (!PG_URL) console.log('BENCH_PG_URL not set: PostgreSQL skipped')
  console.log(`${ROWS} transactions, ${options.days} days × ${options.perDay}, ${RUNS} runs each`)
  for (const name of ['sqlite', ...(PG_URL ? ['postgres'] : [])]) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_TARGET: name }, stdio: 'inherit' })
    if (child.status !== 0) process.exitCode = 1
  }
}
const targets = only === 'sqlite' ? [sqliteTarget] : only === 'postgres' && PG_URL ? [postgresTarget(PG_URL)] : []
for (const target of targets) {
  const store: number[] = []
  const bare: number[] = []
  const peaks: number[] = []
  for (let run = 0; run < RUNS; run++) {
    {
      const { db, drop } = await target.fresh()
      global.gc?.()
      peak = process.memoryUsage.rss()
      const start = performance.now()
      const result = await storeGenerated(db, { ...options, days: Math.ceil(ROWS / options.perDay) })
      const seconds = (performance.now() - start) / 1000
      const stored = await count(db)
      if (stored !== ROWS || result.rows !== ROWS) throw new Error(`stored ${stored}, expected ${ROWS}`)
      store.push(ROWS / seconds)
      peaks.push(peak)
      await db.close()
      await drop()
    }
    {
      const { db, url, drop } = await target.fresh()
      await db.close()
      const seconds = await target.bare(url)
      const check = openDatabase(url)
      if ((await count(check)) !== ROWS) throw new Error('bare insert stored a different count')
      await check.close()
      bare.push(ROWS / seconds)
      await drop()
    }
    console.log(`${target.name} run ${run + 1}: store ${store[run]!.toFixed(0)} rows/s (peak RSS ${(peaks[run]! / 2 ** 20).toFixed(0)} MB), bare insert ${bare[run]!.toFixed(0)} rows/s`)
  }
  const s = median(store)
  const b = median(bare)
  console.log(`${target.name} median: store ${s.toFixed(0)} rows/s, bare insert ${b.toFixed(0)} rows/s, ratio ${(s / b).toFixed(2)}, peak RSS ${(median(peaks) / 2 ** 20).toFixed(0)} MB (max ${(Math.max(...peaks) / 2 ** 20).toFixed(0)} MB)`)
}
clearInterval(sampler)
