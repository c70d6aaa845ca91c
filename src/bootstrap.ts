// What a database needs before a server may use it: the schema, and in sandbox mode the shared sandbox key (also
// registered as a public OAuth client), the fixed sandbox customers (loaded once, through the same importer
// operators use), organizations, reporting keys, reporting OAuth clients and the merchant user, and each sandbox
// merchant's generated transactions. In production, none of the sandbox's reporting identities may be active.
import { activeSandboxKeys, ensureSandboxKeys } from './applications/reporting-keys/sandbox.js'
import type { Config } from './config.js'
import { SANDBOX_MERCHANT_USERS, activeSandboxMerchantUsers } from './identity/merchant-users/service.js'
import { activeSandboxClients, ensureSandboxReportingClients } from './oauth/clients/sandbox.js'
import { ensureSandboxOrganizations } from './organizations/sandbox.js'
import type { Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'
import type { Services } from './services.js'

/**
 * Returns the migrations it applied, in order (none when the database was up to date). `operator` is the CLI, which
 * must still run in production with a sandbox key active: it is how that key gets revoked.
 */
export async function prepareDatabase(
  config: Config,
  infrastructure: { db: Db },
  services: Pick<Services, 'applications' | 'oauth' | 'organizations' | 'reportingKeys' | 'merchantUsers' | 'banking' | 'reporting'>,
  options: { operator?: boolean } = {},
): Promise<string[]> {
  const applied = await migrateToLatest(infrastructure.db)
  if (config.mode === 'sandbox' && config.sandboxApiKey) {
    await services.applications.ensureSandboxKey(config.sandboxApiKey)
    await services.oauth.clients.ensureSandboxClient()
    await ensureSandboxOrganizations(services.organizations)
    await ensureSandboxKeys(services.reportingKeys)
    // After the organizations they belong to; each hashes a published secret (scrypt), so side by side.
    await Promise.all([ensureSandboxReportingClients(services.oauth.clients), ...SANDBOX_MERCHANT_USERS.map((user) => services.merchantUsers.ensure(user))])
    await services.banking.ensureSandboxCustomers()
    // Every sandbox merchant's reports have 90 days of transactions ending today (on the injected clock), once.
    await services.reporting.transactions.ensureSandboxData()
  }
  if (config.mode === 'production' && !options.operator) {
    // The sandbox identities' secrets are public: a production database that holds one (say, one first run in
    // sandbox mode) would let anyone act for its organization.
    const exposed = [
      ...(await activeSandboxKeys(services.reportingKeys)).map((id) => `reporting key ${id} (finapi keys revoke ${id})`),
      ...(await activeSandboxClients(services.oauth.clients)).map((id) => `OAuth client ${id} (finapi clients revoke ${id})`),
      ...(await activeSandboxMerchantUsers(services.merchantUsers)).map((id) => `merchant user credential ${id} (finapi credentials revoke ${id})`),
    ]
    if (exposed.length > 0) throw new Error(`refusing to start in production: public sandbox identities are active: ${exposed.join('; ')}`)
  }
  return applied
}
