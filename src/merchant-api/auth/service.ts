// Authentication of the merchant API family as one service: the authenticator of the three schemes, with the JWT
// ids it has seen remembered in the database (a token is accepted once), and their pruning.
import type { ReportingKeyService } from '../../applications/reporting-keys/service.js'
import type { AccessTokenResolver } from '../../identity/types.js'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { createReportingAuthenticator, type ReportingAuthenticator } from './authenticate.js'
import * as repo from './repository.js'

export interface MerchantAuth {
  authenticator: ReportingAuthenticator
  /** Deletes the JWT ids whose token can no longer be accepted anyway; returns how many. */
  pruneJwtIds(): Promise<number>
}

export function createMerchantAuth(deps: {
  db: Executor
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'descendants'>
  tokens: Pick<AccessTokenResolver, 'find'>
}): MerchantAuth {
  const { db, clock } = deps
  const authenticator = createReportingAuthenticator({
    keys: deps.keys,
    organizations: deps.organizations,
    tokens: deps.tokens,
    jwtIds: { firstSeen: (idHash, expiresAt) => repo.recordJwtId(db, idHash, expiresAt.toISOString(), clock.now().toISOString()) },
    clock,
  })
  return { authenticator, pruneJwtIds: () => repo.deleteExpiredJwtIds(db, clock.now().toISOString()) }
}
