// What a database needs before a server may use it: the schema, and in sandbox mode the shared sandbox key.
import { createApplicationService } from './applications/service.js'
import type { Config } from './config.js'
import type { Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'

export async function prepareDatabase(config: Config, db: Db, clock: Clock): Promise<void> {
  await migrateToLatest(db)
  if (config.mode === 'sandbox' && config.sandboxApiKey) {
    await createApplicationService({ db, clock }).ensureSandboxKey(config.sandboxApiKey)
  }
}
