// The one memory of credentials already used (platform/replay-guard.ts), below the HTTP layer, on the test's
// database: how many uses a key has, an expired row taken over, concurrent spends of one key, housekeeping; and
// migration 0020, which carries the JWT ids and DPoP proofs still live over from the two tables it replaces.
import { Migrator, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { createReplayGuard, type ReplayGuard } from '../src/platform/replay-guard.js'
import { FakeClock } from './support/clock.js'
import { createTestDatabase, openMigratedTestDatabase, everyMigration } from './support/database.js'

const MINUTE = 60_000
let db: Db
let close: () => Promise<void>
let clock: FakeClock
let guard: ReplayGuard
beforeAll(async () => {
  ;({ db, close } = await openMigratedTestDatabase())
  clock = new FakeClock()
  guard = createReplayGuard({ db: db.kysely, clock })
})
afterAll(() => close())

const inFive = () => new Date(clock.nowMs() + 5 * MINUTE)

describe('the replay guard', () => {
  it('allows a key once unless told more, and refuses every use beyond', async () => {
    expect(await guard.spend('once', inFive())).toBe(true)
    expect(await guard.spend('once', inFive())).toBe(false)
    expect(await guard.spend('twice', inFive(), 2)).toBe(true)
    expect(await guard.spend('twice', inFive(), 2)).toBe(true)
    expect(await guard.spend('twice', inFive(), 2)).toBe(false)
  })

  it('takes over a row whose time is up, with its uses counted afresh', async () => {
    expect(await guard.spend('expiring', new Date(clock.nowMs() + MINUTE), 2)).toBe(true)
    expect(await guard.spend('expiring', new Date(clock.nowMs() + MINUTE), 2)).toBe(true)
    clock.advance(MINUTE)
    expect(await guard.spend('expiring', inFive(), 2)).toBe(true)
    expect(await guard.spend('expiring', inFive(), 2)).toBe(true)
    expect(await guard.spend('expiring', inFive(), 2)).toBe(false)
  })

  it('lets exactly the allowed uses through when many spend one key at once', async () => {
    const once = await Promise.all(Array.from({ length: 20 }, () => guard.spend('raced', inFive())))
    expect(once.filter(Boolean)).toHaveLength(1)
    const twice = await Promise.all(Array.from({ length: 20 }, () => guard.spend('raced twice', inFive(), 2)))
    expect(twice.filter(Boolean)).toHaveLength(2)
  })

  it('prunes only the rows whose time is up', async () => {
    const all = async () => Number((await db.kysely.selectFrom('replay_guard').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
    const before = await all()
    expect(await guard.prune()).toBe(0)
    clock.advance(5 * MINUTE)
    expect(await guard.prune()).toBe(before)
    expect(await all()).toBe(0)
  })
})

describe('migration 0020_replay_guard', () => {
  it('carries over the live JWT ids and DPoP proofs under the same digests, and its down restores both tables', async () => {
    const database = await createTestDatabase()
    const old = openDatabase(database.url)
    try {
      const migrator = new Migrator({ db: old.kysely, provider: { getMigrations: async () => everyMigration(old) } })
      expect((await migrator.migrateTo('0018_webhook_certificates')).error).toBeUndefined()
      const until = new Date(clock.nowMs() + MINUTE).toISOString()
      await sql`insert into reporting_jwt_ids (id_hash, expires_at) values ('jwt-digest', ${until})`.execute(old.kysely)
      await sql`insert into oauth_dpop_proofs (proof_hash, expires_at) values ('dpop-digest', ${until})`.execute(old.kysely)
      // Up to 0020 exactly, so the down below undoes 0020 whatever migrations come later.
      const up = await migrator.migrateTo('0020_replay_guard')
      expect(up.error).toBeUndefined()
      expect(up.results?.map((r) => r.migrationName)).toEqual(['0019_dpop_bound_codes', '0020_replay_guard'])
      const carried = createReplayGuard({ db: old.kysely, clock })
      expect(await carried.spend('jwt-digest', new Date(until))).toBe(false)
      expect(await carried.spend('dpop-digest', new Date(until))).toBe(false)
      expect(await carried.spend('new-digest', new Date(until))).toBe(true)
      expect((await migrator.migrateDown()).error).toBeUndefined()
      await sql`select id_hash, expires_at from reporting_jwt_ids`.execute(old.kysely)
      await sql`select proof_hash, expires_at from oauth_dpop_proofs`.execute(old.kysely)
    } finally {
      await old.close()
      await database.drop()
    }
  })
})
