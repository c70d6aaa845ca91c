// The sandbox's customers and their accounts (sandbox-data.ts), loaded once through the importer operators use.
import type { IdentityService } from '../../identity/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/database.js'
import { SANDBOX_CUSTOMER_1_ID, sandboxDataset } from '../sandbox-data.js'
import { importData } from './import.js'

export async function ensureSandboxCustomers(deps: { db: Pick<Db, 'kysely'>; clock: Clock; identity: Pick<IdentityService, 'customerExists' | 'importer'> }): Promise<void> {
  const { identity } = deps
  if (await identity.customerExists(SANDBOX_CUSTOMER_1_ID)) return
  try {
    await importData({ db: deps.db, clock: deps.clock, identity: identity.importer }, sandboxDataset())
  } catch (err) {
    // Another process starting on the same database may have loaded it first.
    if (!(await identity.customerExists(SANDBOX_CUSTOMER_1_ID))) throw err
  }
}
