// A fresh, empty database for one test file: a new SQLite file, or a new PostgreSQL database on the throwaway
// cluster that `npm test` starts (TEST_PG_ADMIN_URL). Returns its URL and a function that drops it.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Migration } from 'kysely'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { collectMigrations, migrateToLatest } from '../../src/platform/db/migrate.js'
import type { Feature } from '../../src/platform/feature.js'
import { createLogger } from '../../src/platform/logger.js'
import { createServices } from '../../src/services.js'
import { FakeClock } from './clock.js'

export interface TestDatabase {
  url: string
  drop(): Promise<void>
}

export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env['TEST_PG_ADMIN_URL'] ? 'postgres' : 'sqlite'

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env['TEST_PG_ADMIN_URL']
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'finapi-test-'))
    return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const name = `t_${randomBytes(8).toString('hex')}`
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () =>
      withAdmin(adminUrl, async (c) => {
        // pg-pool's end() resolves before its clients have finished saying goodbye; WITH (FORCE) at that moment kills
        // one mid-goodbye, and its pool, with no error listener any more, throws an uncaught error into the test
        // run. So wait (a little) for the test's own connections to go; FORCE is for those of killed processes.
        for (let i = 0; i < 40; i++) {
          const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])
          if (rows[0]!.n === 0) break
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }),
  }
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** The features as a server builds them (on a database that is only handed over, not used): what they list. */
export function builtFeatures(db: Db): readonly Feature[] {
  return createServices(loadConfig({ MODE: 'sandbox', DATABASE_URL: 'sqlite::memory:' }), { db, clock: new FakeClock(), logger: createLogger('silent') }).features
}

/** Every migration by name, in order: the platform's and every feature's (for tests of one migration's upgrade). */
export function everyMigration(db: Db): Record<string, Migration> {
  return collectMigrations(builtFeatures(db))
}

/** Applies every migration, the platform's and every feature's, as a server's start does; returns those it applied. */
export function migrate(db: Db): Promise<string[]> {
  return migrateToLatest(db, builtFeatures(db))
}

/** A fresh database with every migration applied and an open handle to it: for tests below the HTTP layer. */
export async function openMigratedTestDatabase(): Promise<{ database: TestDatabase; db: Db; close(): Promise<void> }> {
  const database = await createTestDatabase()
  const db = openDatabase(database.url)
  await migrate(db)
  return {
    database,
    db,
    async close() {
      await db.close()
      await database.drop()
    },
  }
}

/**
 * Runs one statement on `database` through a connection of its own (neither a server's nor the harness's), as an
 * operator's SQL would: `sqliteSql` with `?` placeholders, `pgSql` with `$n`.
 */
export async function outsideSql(database: TestDatabase, sqliteSql: string, pgSql: string, params: readonly string[]): Promise<void> {
  if (TEST_DIALECT === 'sqlite') {
    const { default: Database } = await import('better-sqlite3')
    const outside = new Database(new URL(database.url).pathname)
    try {
      outside.prepare(sqliteSql).run(...params)
    } finally {
      outside.close()
    }
    return
  }
  const outside = new pg.Client({ connectionString: database.url })
  await outside.connect()
  try {
    await outside.query(pgSql, [...params])
  } finally {
    await outside.end()
  }
}
