// Console sessions: a merchant user signs in with their password through identity's verify (the consent page's
// lockout and uniform failure) behind the consent page's sign-in throttle, and gets a random token whose SHA-256 is
// a row here. A session ends when idle too long, at its absolute expiry (both read from the injected clock), at
// sign-out, or as soon as the user's credential is revoked. Each session's CSRF token is an HMAC of its token under
// a key derived for that purpose: tied to the session, nothing more to store, compared in constant time.
import type { MerchantUserService } from '../../identity/merchant-users/service.js'
import type { IdentityService } from '../../identity/service.js'
import { MERCHANT_USER_KIND, MERCHANT_USER_REALM } from '../../identity/types.js'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { deriveKey, hmacSha256Hex, randomSecret, sameText, sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import { DomainError, notFound } from '../../platform/errors.js'
import * as repo from './repository.js'

/** Same bound as the consent page's form fields. */
const MAX_CREDENTIAL_LENGTH = 128
const TOKEN = /^[A-Za-z0-9_-]{43}$/

export interface ConsoleSessionSettings {
  idleMinutes: number
  maxHours: number
}

export interface ConsoleSession {
  tokenHash: string
  customerId: string
  /** The merchant user's own organization. */
  organizationId: string
  /** The organization acted for: chosen, or the user's own. */
  actingId: string
  csrfToken: string
  expiresAt: string
  /** A merchant user with the operator role (read at every request: taking it back counts at once). */
  operator: boolean
}

export type SignInOutcome =
  | { kind: 'signed-in'; token: string; session: ConsoleSession }
  | { kind: 'failed' }
  | { kind: 'throttled'; retryAfter: number }

/** The consent page's throttle (oauth/clients/authenticate.ts createClientThrottle), keyed here by "console". */
export type SignInThrottle = (key: string, source: string | undefined) => number | undefined

export interface ConsoleSessionService {
  signIn(username: string | undefined, password: string | undefined, source: string | undefined): Promise<SignInOutcome>
  /** The live session of a cookie's token (its idle expiry pushed on), or undefined. */
  resolve(token: string | undefined): Promise<ConsoleSession | undefined>
  signOut(session: ConsoleSession): Promise<void>
  csrfMatches(session: ConsoleSession, presented: unknown): boolean
  /** The sign-in form's CSRF token, bound to the pre-session cookie's random value (no session exists yet). */
  preSignInToken(pre: string): string
  preSignInMatches(pre: string, presented: string): boolean
  /** The organizations the user may act for: its own, then every one below it (the API's organizationId rule). */
  choices(session: ConsoleSession): Promise<{ id: string; type: string; name: string }[]>
  /** Acts for `organizationId` from now on; notFound() unless the API's rule lets the user act for it. */
  choose(session: ConsoleSession, organizationId: string): Promise<void>
  prune(): Promise<number>
}

export function createConsoleSessionService(deps: {
  db: Pick<Db, 'kysely'>
  clock: Clock
  secretsKey: string
  settings: ConsoleSessionSettings
  identity: Pick<IdentityService, 'verify' | 'listCredentials'>
  merchantUsers: Pick<MerchantUserService, 'organizationOf' | 'isOperator'>
  organizations: Pick<OrganizationService, 'mayActFor' | 'descendants' | 'find'>
  throttle: SignInThrottle
}): ConsoleSessionService {
  const { db, clock, identity, organizations } = deps
  const csrfKey = deriveKey(deps.secretsKey, 'console-csrf/v1')
  const idleMs = deps.settings.idleMinutes * 60_000
  const maxMs = deps.settings.maxHours * 3_600_000
  const csrfOf = (token: string) => hmacSha256Hex(csrfKey, token)

  const view = (row: repo.SessionRow, token: string, operator: boolean): ConsoleSession => ({
    tokenHash: row.token_hash,
    customerId: row.customer_id,
    organizationId: row.organization_id,
    actingId: row.acting_organization_id ?? row.organization_id,
    csrfToken: csrfOf(token),
    expiresAt: row.expires_at,
    operator,
  })

  return {
    async signIn(username, password, source) {
      const wait = deps.throttle('console', source)
      if (wait !== undefined) return { kind: 'throttled', retryAfter: wait }
      if (!username || !password || username.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) return { kind: 'failed' }
      let verified
      try {
        verified = await identity.verify(MERCHANT_USER_REALM.brand, MERCHANT_USER_REALM.lob, { kind: MERCHANT_USER_KIND, identifier: username, secret: password }, { source })
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'unauthenticated') return { kind: 'failed' }
        throw err
      }
      const organizationId = await deps.merchantUsers.organizationOf(verified.customerId)
      if (!organizationId) return { kind: 'failed' }
      // A new token at every sign-in: no session id survives from before it (session fixation).
      const token = randomSecret(32)
      const now = clock.now().getTime()
      const row: repo.SessionRow = {
        token_hash: sha256Hex(token),
        customer_id: verified.customerId,
        credential_id: verified.id,
        organization_id: organizationId,
        acting_organization_id: null,
        created_at: new Date(now).toISOString(),
        last_seen_at: new Date(now).toISOString(),
        idle_expires_at: new Date(Math.min(now + idleMs, now + maxMs)).toISOString(),
        expires_at: new Date(now + maxMs).toISOString(),
        revoked_at: null,
      }
      await repo.insert(db.kysely, row)
      return { kind: 'signed-in', token, session: view(row, token, await deps.merchantUsers.isOperator(verified.customerId)) }
    },

    async resolve(token) {
      if (token === undefined || !TOKEN.test(token)) return undefined
      const now = clock.now().getTime()
      const row = await repo.findLive(db.kysely, sha256Hex(token), new Date(now).toISOString())
      if (!row) return undefined
      // A revoked merchant user is signed out at once, whatever their sessions' expiries say.
      const credentials = await identity.listCredentials(row.customer_id)
      if (!credentials.some((c) => c.id === row.credential_id && c.status !== 'revoked')) return undefined
      const idle = new Date(Math.min(now + idleMs, Date.parse(row.expires_at))).toISOString()
      await repo.touch(db.kysely, row.token_hash, new Date(now).toISOString(), idle)
      return view(row, token, await deps.merchantUsers.isOperator(row.customer_id))
    },

    async signOut(session) {
      await repo.revoke(db.kysely, session.tokenHash, clock.now().toISOString())
    },

    csrfMatches(session, presented) {
      return typeof presented === 'string' && sameText(presented, session.csrfToken)
    },

    preSignInToken: (pre) => csrfOf(`pre:${pre}`),
    preSignInMatches: (pre, presented) => TOKEN.test(pre) && sameText(presented, csrfOf(`pre:${pre}`)),

    async choices(session) {
      const own = await organizations.find(session.organizationId)
      const below = await organizations.descendants(session.organizationId)
      return [...(own ? [own] : []), ...below].map((o) => ({ id: o.id, type: o.type, name: o.name }))
    },

    async choose(session, organizationId) {
      // The gateway's rule for organizationId, called, not restated: an unknown id and another tenant's read alike.
      if (!(await organizations.mayActFor(session.organizationId, organizationId))) throw notFound([{ field: 'organizationId', reason: 'no such organization' }])
      await repo.setActing(db.kysely, session.tokenHash, organizationId)
    },

    prune: () => repo.deleteDead(db.kysely, clock.now().toISOString()),
  }
}
