// What a database needs before a server may use it: the schema (the platform's migrations and every feature's), and
// in sandbox mode each feature's sandbox data (the shared key and its public OAuth client, organizations, reporting
// keys and clients, the merchant user, customers, each sandbox merchant's generated transactions), loaded feature by
// feature in the composition root's order. In production, no feature's public sandbox identity may be active.
import type { Config } from './config.js'
import type { Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'
import { hashingOnThisThread } from './platform/crypto.js'
import type { Services } from './services.js'

/**
 * Returns the migrations it applied, in order (none when the database was up to date). `operator` is the CLI, which
 * must still run in production with a sandbox key active: it is how that key gets revoked.
 */
export async function prepareDatabase(config: Config, infrastructure: { db: Db }, services: Pick<Services, 'features'>, options: { operator?: boolean } = {}): Promise<string[]> {
  const applied = await migrateToLatest(infrastructure.db, services.features)
  if (config.mode === 'sandbox' && config.sandboxApiKey) {
    // One after another: each feature's data may stand on an earlier one's (reporting keys on organizations). Their
    // published secrets are hashed on this thread: nothing else runs yet, and it keeps the memory (crypto.ts).
    await hashingOnThisThread(async () => {
      for (const feature of services.features) await feature.sandbox?.seed()
    })
  }
  if (config.mode === 'production' && !options.operator) {
    // The sandbox identities' secrets are public: a production database that holds one (say, one first run in
    // sandbox mode) would let anyone act for its organization.
    const exposed = (await Promise.all(services.features.map(async (feature) => (await feature.sandbox?.exposed?.()) ?? []))).flat()
    if (exposed.length > 0) throw new Error(`refusing to start in production: public sandbox identities are active: ${exposed.join('; ')}`)
  }
  return applied
}
