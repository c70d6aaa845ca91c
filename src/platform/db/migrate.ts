// One ordered migration history for both dialects, applied at start and by `finapi migrate`.
// Kysely's migrator takes a lock (a row lock on PostgreSQL), so two processes starting at once do not race.
import { Migrator, type Migration, type MigrationProvider } from 'kysely'
import type { Db } from './database.js'
import * as m0001 from '../../migrations/0001_foundation.js'
import * as m0002 from '../../migrations/0002_banking.js'
import * as m0003 from '../../migrations/0003_oauth.js'
import * as m0004 from '../../migrations/0004_housekeeping.js'
import * as m0005 from '../../migrations/0005_jobs.js'
import * as m0006 from '../../migrations/0006_blobs.js'
import * as m0007 from '../../migrations/0007_source_lockouts.js'
import * as m0008 from '../../migrations/0008_stateless_consents.js'
import * as m0009 from '../../migrations/0009_transactions.js'
import * as m0010 from '../../migrations/0010_organizations.js'
import * as m0012 from '../../migrations/0012_oauth_par_dpop.js'
import * as m0013 from '../../migrations/0013_report_subscriptions.js'
import * as m0014 from '../../migrations/0014_reporting_bearer_auth.js'
import * as m0015 from '../../migrations/0015_transaction_tallies.js'
import * as m0016 from '../../migrations/0016_report_engine.js'
import * as m0017 from '../../migrations/0017_webhooks.js'
import * as m0018 from '../../migrations/0018_webhook_certificates.js'
import * as m0019dpop from '../../migrations/0019_dpop_bound_codes.js'
import * as m0020 from '../../migrations/0020_replay_guard.js'

/** Every migration by name, in order (exported for the tests of one migration's upgrade). */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_banking': m0002,
  '0003_oauth': m0003,
  '0004_housekeeping': m0004,
  '0005_jobs': m0005,
  '0006_blobs': m0006,
  '0007_source_lockouts': m0007,
  '0008_stateless_consents': m0008,
  '0009_transactions': m0009,
  '0010_organizations': m0010,
  '0012_oauth_par_dpop': m0012,
  '0013_report_subscriptions': m0013,
  '0014_reporting_bearer_auth': m0014,
  '0015_transaction_tallies': m0015,
  '0016_report_engine': m0016,
  '0017_webhooks': m0017,
  '0018_webhook_certificates': m0018,
  '0019_dpop_bound_codes': m0019dpop,
  '0020_replay_guard': m0020,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider })
  const { error, results } = await db.exclusively(() => migrator.migrateToLatest())
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, { cause: error })
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
