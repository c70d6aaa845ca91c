// Identity as one descriptor: customers, credentials and sessions, with resolvePrincipal for every interface.
// It serves no routes of its own; its sessions expire and are pruned with everything else.
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import { createIdentityService, pruneRevokedSoftCredentials, pruneSessions, type IdentityService } from './service.js'
import type { AccessTokenResolver } from './types.js'

export function identityFeature(deps: { db: Pick<Db, 'kysely'>; clock: Clock; secretsKey: string; accessTokens?: AccessTokenResolver }): Feature<IdentityService> {
  return {
    name: 'identity',
    services: createIdentityService(deps),
    housekeeping: [
      { name: 'sessions', prune: () => pruneSessions(deps.db, deps.clock) },
      { name: 'revoked soft credentials', prune: () => pruneRevokedSoftCredentials(deps.db, deps.clock) },
    ],
  }
}
