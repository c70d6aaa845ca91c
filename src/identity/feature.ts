// Identity as one descriptor: customers, credentials and sessions, with resolvePrincipal for every interface, and
// merchant users (customers of an organization, who allow its partners' OAuth clients on the consent page). It serves
// no routes of its own; its sessions expire and are pruned with everything else; the sandbox's merchant user.
import type { OrganizationService } from '../organizations/service.js'
import type { Feature } from '../platform/feature.js'
import * as m0007 from '../migrations/0007_source_lockouts.js'
import * as m0023 from '../migrations/0023_merchant_user_roles.js'
import { SANDBOX_MERCHANT_USERS, activeSandboxMerchantUsers, createMerchantUserService, type MerchantUserService } from './merchant-users/service.js'
import { createIdentityService, pruneRevokedSoftCredentials, pruneSessions, pruneSourceFailures, type IdentityDeps, type IdentityService } from './service.js'

export interface IdentityServices {
  /** Customers, credentials, sessions; resolvePrincipal for every interface. */
  identity: IdentityService
  merchantUsers: MerchantUserService
}

export function identityFeature(deps: IdentityDeps & { organizations: Pick<OrganizationService, 'find'> }): Feature<IdentityServices> {
  const merchantUsers = createMerchantUserService(deps)
  return {
    name: 'identity',
    services: { identity: createIdentityService(deps), merchantUsers },
    housekeeping: [
      { name: 'sessions', prune: () => pruneSessions(deps.db, deps.clock) },
      { name: 'revoked soft credentials', prune: () => pruneRevokedSoftCredentials(deps.db, deps.clock) },
      { name: 'sign-in failures per source', prune: () => pruneSourceFailures(deps.db, deps.clock) },
    ],
    // Customers, credentials and sessions were made with banking's accounts (0002, banking's).
    migrations: { '0007_source_lockouts': m0007, '0023_merchant_user_roles': m0023 },
    sandbox: {
      // Each hashes a published password (scrypt): side by side.
      seed: async () => void (await Promise.all(SANDBOX_MERCHANT_USERS.map((user) => merchantUsers.ensure(user)))),
      exposed: async () => (await activeSandboxMerchantUsers(merchantUsers)).map((id) => `merchant user credential ${id} (finapi credentials revoke ${id})`),
    },
  }
}
