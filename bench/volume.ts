// What the volume benchmarks share (on-demand reports, the console): a fresh database of either kind, BENCH_ROWS
// transactions for testrest over the 90 days ending today stored through the store's own path (claimed as
// testrest's sandbox data, so the server's first start leaves it alone), and waiting for the server to be ready.
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import pg from 'pg'
import { request } from 'undici'
import type { Db } from '../src/platform/db/database.js'
import { claimSandboxLoad } from '../src/reporting/transactions/repository.js'
import { storeGenerated } from '../src/reporting/transactions/generate.js'

export const VOLUME_DAYS = 90
const dayMs = Date.parse(new Date().toISOString().slice(0, 10))
/** Midnight UTC `n` days from today, as an ISO timestamp. */
export const day = (n: number) => new Date(dayMs + n * 86_400_000).toISOString()
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!

/** A database of its own for one run: a temporary SQLite file or PostgreSQL database (or BENCH_KEEP_SQLITE's, BENCH_KEEP_PG's). */
export async function freshDatabase(dialect: string, prefix: string, pgUrl?: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    // BENCH_KEEP_SQLITE=<file>: generate once into that file and use it again while it is today's (kept afterwards).
    const kept = process.env['BENCH_KEEP_SQLITE']
    if (kept) return { url: `sqlite:${kept}`, drop: async () => {} }
    const dir = mkdtempSync(join(tmpdir(), `finapi-bench-${prefix}-`))
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  // BENCH_KEEP_PG=<database name>: as BENCH_KEEP_SQLITE, a database on BENCH_PG_URL's server made if missing and kept.
  const kept = process.env['BENCH_KEEP_PG']
  if (kept !== undefined && !/^[a-z_][a-z0-9_]*$/.test(kept)) throw new Error(`BENCH_KEEP_PG: ${kept} is not a plain database name (a-z, 0-9, _)`)
  const name = kept ?? `bench_${prefix}_${process.pid}`
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: pgUrl })
    await c.connect()
    try {
      return await c.query(statement)
    } finally {
      await c.end()
    }
  }
  const exists = kept !== undefined && (await admin(`select 1 from pg_database where datname = '${name}'`)).rowCount === 1
  if (!exists) await admin(`create database ${name}`)
  const url = new URL(pgUrl!)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: kept !== undefined ? async () => {} : async () => void (await admin(`drop database if exists ${name} with (force)`)) }
}

/** `rows` transactions for testrest over the 90 days ending today, unless the (kept) database has them already. */
export async function storeVolume(db: Db, dialect: string, rows: number): Promise<void> {
  const perDay = Math.ceil(rows / VOLUME_DAYS)
  const claimed = await claimSandboxLoad(db.kysely, { organizationId: 'testrest', seed: 'bench', endDate: day(0).slice(0, 10), rows: perDay * VOLUME_DAYS, createdAt: new Date().toISOString() })
  if (claimed) {
    const started = performance.now()
    const stored = await storeGenerated(db, { organizationId: 'testrest', days: VOLUME_DAYS, perDay, seed: 'bench', end: day(0).slice(0, 10) })
    console.log(`\n${dialect}: ${stored.rows} transactions over ${VOLUME_DAYS} days stored in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } else console.log(`\n${dialect}: the kept database's transactions`)
  // As a database that has been running would be: statistics current (autovacuum may not have run yet).
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db.kysely)
}

export async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (await request(url).then((r) => (r.body.dump(), r.statusCode === 200), () => false)) return
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * Runs the benchmark on SQLite, then on PostgreSQL when BENCH_PG_URL is set, each in a process of its own (the
 * script again, with BENCH_TARGET naming the database); in that process, `run` measures the one it names.
 */
export async function onEachDatabase(script: string, pgUrl: string | undefined, run: (dialect: string) => Promise<void>): Promise<void> {
  const target = process.env['BENCH_TARGET']
  if (target !== undefined) return run(target)
  if (!pgUrl) console.log('BENCH_PG_URL not set: PostgreSQL skipped')
  for (const name of ['sqlite', ...(pgUrl ? ['postgres'] : [])]) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(script)], { env: { ...process.env, BENCH_TARGET: name }, stdio: 'inherit' })
    if (child.status !== 0) process.exitCode = 1
  }
}
