// A feature is added in one line of the composition root (services.ts), and everything else reads the features from
// there: here, that every migration file is listed by exactly one feature (or the platform) and the history the
// migrator runs is the one every existing database has recorded, name for name; and that the command tree registers
// exactly the features' commands.
import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FEATURE_COMMANDS } from '../src/cli/program.js'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { collectMigrations, PLATFORM_MIGRATIONS } from '../src/platform/db/migrate.js'
import type { Feature } from '../src/platform/feature.js'
import { builtFeatures, createTestDatabase, migrate, type TestDatabase } from './support/database.js'

/**
 * The history as databases have recorded it when features began listing their migrations (Kysely's migrator keeps
 * each name): never renamed nor reordered, only added to after its end.
 */
const HISTORY = [
  '0001_foundation',
  '0002_banking',
  '0003_oauth',
  '0004_housekeeping',
  '0005_jobs',
  '0006_blobs',
  '0007_source_lockouts',
  '0008_stateless_consents',
  '0009_transactions',
  '0010_organizations',
  '0012_oauth_par_dpop',
  '0013_report_subscriptions',
  '0014_reporting_bearer_auth',
  '0015_transaction_tallies',
  '0016_report_engine',
  '0017_webhooks',
  '0018_webhook_certificates',
  '0019_dpop_bound_codes',
  '0020_replay_guard',
]

const MIGRATIONS_DIR = new URL('../src/migrations/', import.meta.url)

let handle: Db
let features: readonly Feature[]
beforeAll(() => {
  handle = openDatabase('sqlite::memory:')
  features = builtFeatures(handle)
})
afterAll(() => handle.close())

describe('migrations', () => {
  it('every migration file is listed, under its own name, by exactly one feature or the platform', async () => {
    const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_\w+\.ts$/.test(f)).map((f) => f.slice(0, -'.ts'.length))
    const listed = [['platform', PLATFORM_MIGRATIONS] as const, ...features.map((f) => [f.name, f.migrations ?? {}] as const)].flatMap(([owner, migrations]) =>
      Object.entries(migrations).map(([name, migration]) => ({ owner, name, migration })),
    )
    const owners = (name: string) => listed.filter((l) => l.name === name).map((l) => l.owner)
    expect(files.map((name) => ({ name, listedBy: owners(name) })).filter(({ listedBy }) => listedBy.length !== 1)).toEqual([])
    expect(listed.map((l) => l.name).filter((name) => !files.includes(name))).toEqual([])
    // The name a feature lists it under is its file's: the module listed is the one the file holds.
    for (const { name, migration } of listed) expect(migration, name).toBe(await import(new URL(`${name}.ts`, MIGRATIONS_DIR).href))
  })

  it('runs them in name order: the history existing databases have recorded, then only what is newer', () => {
    const names = Object.keys(collectMigrations(features))
    expect(names.slice(0, HISTORY.length)).toEqual(HISTORY)
    expect(names.slice(HISTORY.length).filter((name) => name <= HISTORY.at(-1)!)).toEqual([])
  })

  it('refuses a migration listed twice', () => {
    const twice = { name: 'second', migrations: { '0005_jobs': PLATFORM_MIGRATIONS['0005_jobs']! } }
    expect(() => collectMigrations([...features, twice])).toThrow('Migration 0005_jobs is listed by both platform and second')
  })

  describe('on a fresh database', () => {
    let database: TestDatabase
    let db: Db
    beforeAll(async () => {
      database = await createTestDatabase()
      db = openDatabase(database.url)
    })
    afterAll(async () => {
      await db.close()
      await database.drop()
    })

    it('applies the whole history once, in order, and nothing the second time', async () => {
      expect(await migrate(db)).toEqual(Object.keys(collectMigrations(features)))
      expect(await migrate(db)).toEqual([])
    })
  })
})

describe('commands', () => {
  it('the command tree registers every feature’s commands, in the composition root’s order, and no others', () => {
    expect(FEATURE_COMMANDS).toEqual(features.flatMap((f) => (f.commands ? [f.commands] : [])))
  })
})
