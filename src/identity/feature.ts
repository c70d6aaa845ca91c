// Identity as one descriptor: customers, credentials and sessions, with resolvePrincipal for every interface.
// It serves no routes of its own; its sessions expire and are pruned with everything else.
import type { Feature } from '../platform/feature.js'
import { createIdentityService, pruneRevokedSoftCredentials, pruneSessions, pruneSourceFailures, type IdentityDeps, type IdentityService } from './service.js'

export function identityFeature(deps: IdentityDeps): Feature<IdentityService> {
  return {
    name: 'identity',
    services: createIdentityService(deps),
    housekeeping: [
      { name: 'sessions', prune: () => pruneSessions(deps.db, deps.clock) },
      { name: 'revoked soft credentials', prune: () => pruneRevokedSoftCredentials(deps.db, deps.clock) },
      { name: 'sign-in failures per source', prune: () => pruneSourceFailures(deps.db, deps.clock) },
    ],
  }
}
