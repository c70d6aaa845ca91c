// One ordered migration history for both dialects, applied at start and by `finapi migrate`: the platform's own
// migrations (below) and each feature's (Feature.migrations), gathered and run in name order. Kysely's migrator
// records each by name, refuses a database that has applied one it is not given, and takes a lock (a row lock on
// PostgreSQL), so two processes starting at once do not race.
import { Migrator, type Migration, type MigrationProvider } from 'kysely'
import type { Feature } from '../feature.js'
import type { Db } from './database.js'
import * as m0001 from '../../migrations/0001_foundation.js'
import * as m0004 from '../../migrations/0004_housekeeping.js'
import * as m0005 from '../../migrations/0005_jobs.js'
import * as m0006 from '../../migrations/0006_blobs.js'
import * as m0020 from '../../migrations/0020_replay_guard.js'
import * as m0026 from '../../migrations/0026_jobs_partial_indexes.js'

/**
 * The platform's: its settings (0001, with the application keys every interface started from), the expiry indexes
 * housekeeping prunes by (0004), jobs (0005; their indexes now 0026's), blobs, and the one replay guard (0020). A
 * migration that made several modules' tables is listed by the one it is named after.
 */
export const PLATFORM_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_foundation': m0001,
  '0004_housekeeping': m0004,
  '0005_jobs': m0005,
  '0006_blobs': m0006,
  '0020_replay_guard': m0020,
  '0026_jobs_partial_indexes': m0026,
}

/** Every migration, the platform's and each feature's, by name in name order; a name listed twice is a mistake. */
export function collectMigrations(features: readonly Pick<Feature, 'name' | 'migrations'>[]): Record<string, Migration> {
  const owners = new Map<string, string>()
  const all = new Map<string, Migration>()
  for (const [owner, migrations] of [['platform', PLATFORM_MIGRATIONS] as const, ...features.map((f) => [f.name, f.migrations ?? {}] as const)]) {
    for (const [name, migration] of Object.entries(migrations)) {
      const first = owners.get(name)
      if (first !== undefined) throw new Error(`Migration ${name} is listed by both ${first} and ${owner}`)
      owners.set(name, owner)
      all.set(name, migration)
    }
  }
  return Object.fromEntries([...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

export async function migrateToLatest(db: Db, features: readonly Pick<Feature, 'name' | 'migrations'>[]): Promise<string[]> {
  const migrations = collectMigrations(features)
  const provider: MigrationProvider = { getMigrations: async () => migrations }
  const migrator = new Migrator({ db: db.kysely, provider })
  const { error, results } = await db.exclusively(() => migrator.migrateToLatest())
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, { cause: error })
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
