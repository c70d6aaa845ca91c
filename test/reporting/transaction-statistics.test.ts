// The planner's statistics after a bulk load (issue 20, target 6), through the real CLI on a real database (SQLite,
// or PostgreSQL with TEST_PG_ADMIN_URL): `finapi transactions generate`, `finapi transactions import` and the
// sandbox's first start leave the tables they filled analyzed. On PostgreSQL a table filled in bulk has no
// statistics until autovacuum gets round to it (`last_autoanalyze`; this checks `last_analyze`, which only an
// explicit ANALYZE sets), and the first report planned for an empty table took 40-47 s instead of about 6 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { describe, expect, it, onTestFinished } from 'vitest'
import { openDatabase } from '../../src/platform/db/database.js'
import { runFinapi } from '../support/cli.js'
import { createTestDatabase, TEST_DIALECT } from '../support/database.js'

const LOADED = ['transactions', 'transaction_tallies', 'transaction_events', 'transaction_details']

/** The loaded tables that have statistics: PostgreSQL's explicitly analyzed ones with rows counted, SQLite's sqlite_stat1. */
async function analyzed(url: string): Promise<string[]> {
  const db = openDatabase(url)
  try {
    if (TEST_DIALECT === 'postgres') {
      const { rows } = await sql<{ relname: string }>`
        select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.last_analyze is not null and c.reltuples > 0`.execute(db.kysely)
      return rows.map((r) => r.relname).filter((t) => LOADED.includes(t)).sort()
    }
    const stats = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db.kysely)
    if (stats.rows[0]!.n === 0) return []
    const { rows } = await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1`.execute(db.kysely)
    return rows.map((r) => r.tbl).filter((t) => LOADED.includes(t)).sort()
  } finally {
    await db.close()
  }
}

async function withDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const database = await createTestDatabase()
  try {
    await fn(database.url)
  } finally {
    await database.drop()
  }
}

const production = (url: string) => ({ MODE: 'production', DATABASE_URL: url, LOG_LEVEL: 'warn', SECRETS_KEY: 'statistics-test-secrets-key-0123456789' })
const sorted = [...LOADED].sort()

describe('planner statistics after a bulk load', () => {
  it('finapi transactions generate leaves the tables it filled analyzed', async () => {
    await withDatabase(async (url) => {
      const created = await runFinapi(['orgs', 'create', '--id', 'stats', '--type', 'merchant'], production(url))
      expect(created.code, created.stderr).toBe(0)
      expect(await analyzed(url)).toEqual([])
      const res = await runFinapi(['transactions', 'generate', '--org', 'stats', '--days', '10', '--per-day', '300', '--seed', 'stats', '--end', '2026-03-01'], production(url))
      expect(res.code, res.stderr).toBe(0)
      expect(await analyzed(url)).toEqual(sorted)
    })
  })

  it('finapi transactions import leaves the tables it filled analyzed', async () => {
    await withDatabase(async (url) => {
      const migrated = await runFinapi(['migrate'], production(url))
      expect(migrated.code, migrated.stderr).toBe(0)
      const folder = mkdtempSync(join(tmpdir(), 'finapi-statistics-'))
      onTestFinished(() => rmSync(folder, { recursive: true, force: true }))
      const path = join(folder, 'load.ndjson')
      const line = (i: number) =>
        JSON.stringify({ organizationId: 'imp', requestId: String(10_000 + i), type: i % 3 ? 'sale' : 'refund', requestTime: `2026-03-0${1 + (i % 9)}T10:00:00Z`, submissionTime: `2026-03-0${1 + (i % 9)}T23:00:00Z`, currency: 'USD', amount: '10.00' })
      writeFileSync(path, Array.from({ length: 3000 }, (_, i) => line(i)).join('\n') + '\n')
      expect(await analyzed(url)).toEqual([])
      const res = await runFinapi(['transactions', 'import', path], production(url))
      expect(res.code, res.stderr).toBe(0)
      // No events among these rows: the events table is analyzed but, empty, has no statistics to show.
      expect(await analyzed(url)).toEqual(sorted.filter((t) => t !== 'transaction_events'))
    })
  })

  it("the sandbox's first start leaves the tables it filled analyzed", async () => {
    await withDatabase(async (url) => {
      const res = await runFinapi(['migrate'], { MODE: 'sandbox', DATABASE_URL: url, LOG_LEVEL: 'warn' })
      expect(res.code, res.stderr).toBe(0)
      expect(await analyzed(url)).toEqual(sorted)
    })
  })
})
