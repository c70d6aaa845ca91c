// What a database needs before a server may use it: the schema, and in sandbox mode the shared sandbox key (also
// registered as a public OAuth client) and the fixed sandbox customers (loaded once, through the same importer
// operators use).
import { createApplicationService } from './applications/service.js'
import { importData } from './banking/importer.js'
import { SANDBOX_CUSTOMER_1_ID, sandboxDataset } from './banking/sandbox-data.js'
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
    if (!(await sandboxLoaded(db))) {
      try {
        await importData({ db, clock }, sandboxDataset())
      } catch (err) {
        // Another process starting on the same database may have loaded it first.
        if (!(await sandboxLoaded(db))) throw err
      }
    }
  }
}

async function sandboxLoaded(db: Db): Promise<boolean> {
  return (await db.kysely.selectFrom('customers').select('id').where('id', '=', SANDBOX_CUSTOMER_1_ID).executeTakeFirst()) !== undefined
}
