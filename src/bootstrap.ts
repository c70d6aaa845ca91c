// What a database needs before a server may use it: the schema, and in sandbox mode the shared sandbox key (also
// registered as a public OAuth client) and the fixed sandbox customers (loaded once, through the same importer
// operators use).
import { createApplicationService } from './applications/service.js'
import { importData } from './banking/importer.js'
import { SANDBOX_CUSTOMER_1_ID, sandboxDataset } from './banking/sandbox-data.js'
import { createIdentityImport } from './identity/import.js'
import { customerExists } from './identity/service.js'
import { createClientService } from './oauth/clients-service.js'
import type { Config } from './config.js'
import type { Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'

export async function prepareDatabase(config: Config, db: Db, clock: Clock): Promise<void> {
  await migrateToLatest(db)
  if (config.mode === 'sandbox' && config.sandboxApiKey) {
    const applications = createApplicationService({ db, clock })
    await applications.ensureSandboxKey(config.sandboxApiKey)
    await createClientService({ db, clock, applications }).ensureSandboxClient()
    if (!(await customerExists(db, SANDBOX_CUSTOMER_1_ID))) {
      try {
        await importData({ db, clock, identity: createIdentityImport(config.secretsKey) }, sandboxDataset())
      } catch (err) {
        // Another process starting on the same database may have loaded it first.
        if (!(await customerExists(db, SANDBOX_CUSTOMER_1_ID))) throw err
      }
    }
  }
}
