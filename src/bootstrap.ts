// What a database needs before a server may use it: the schema, and in sandbox mode the shared sandbox key (also
// registered as a public OAuth client) and the fixed sandbox customers (loaded once, through the same importer
// operators use), and each sandbox merchant's generated transactions.
import { importData } from './banking/importer.js'
import { SANDBOX_CUSTOMER_1_ID, sandboxDataset } from './banking/sandbox-data.js'
import { createIdentityImport } from './identity/import.js'
import { customerExists } from './identity/service.js'
import type { Config } from './config.js'
import type { Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'
import { ensureSandboxTransactions } from './reporting/transactions/service/generate.js'
import type { Services } from './services.js'

/** Returns the migrations it applied, in order (none when the database was up to date). */
export async function prepareDatabase(config: Config, infrastructure: { db: Db; clock: Clock }, services: Pick<Services, 'applications' | 'oauth'>): Promise<string[]> {
  const { db, clock } = infrastructure
  const applied = await migrateToLatest(db)
  if (config.mode === 'sandbox' && config.sandboxApiKey) {
    await services.applications.ensureSandboxKey(config.sandboxApiKey)
    await services.oauth.clients.ensureSandboxClient()
    if (!(await customerExists(db, SANDBOX_CUSTOMER_1_ID))) {
      try {
        await importData({ db, clock, identity: createIdentityImport(config.secretsKey) }, sandboxDataset())
      } catch (err) {
        // Another process starting on the same database may have loaded it first.
        if (!(await customerExists(db, SANDBOX_CUSTOMER_1_ID))) throw err
      }
    }
    // Every sandbox merchant's reports have 90 days of transactions ending today (on the injected clock), once.
    await ensureSandboxTransactions(db, clock)
  }
  return applied
}
