// A PostgreSQL connection the server ends while it sits idle in the pool (a restart, an administrator's
// pg_terminate_backend, a dropped network) is reported and replaced: the process does not die of pg's 'error'
// event, and the next query runs on a fresh connection.
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './support/database.js'

let database: TestDatabase
let db: Db
const lost: Error[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  db = openDatabase(database.url, { onConnectionError: (err) => lost.push(err) })
})
afterAll(async () => {
  await db.close()
  await database.drop()
})

describe.skipIf(TEST_DIALECT === 'sqlite')('idle connections ended by the server (PostgreSQL)', () => {
  it('are reported, and the next query runs on a new connection', async () => {
    // Three connections in the pool, then idle.
    await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(db.kysely)))
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    let terminated = 0
    try {
      const ended = await admin.query('select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()) t')
      terminated = ended.rows[0].n
      expect(terminated).toBeGreaterThanOrEqual(1)
    } finally {
      await admin.end()
    }
    // Every ended connection reports its end on its own socket: the query below waits for all of them, or it may be
    // given one whose news has not arrived yet (under load it was).
    for (let i = 0; i < 250 && lost.length < terminated; i++) await new Promise((r) => setTimeout(r, 20))
    expect(lost.length).toBeGreaterThanOrEqual(terminated)
    expect(lost[0]!.message).toMatch(/terminat/i)
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.kysely)
    expect(rows).toEqual([{ one: 1 }])
  })
})
