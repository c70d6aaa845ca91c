// Identity: verifying claimed credentials, lockout, sessions, soft credentials, and resolvePrincipal, the one way
// banking, OAuth and reporting turn a presented Authorization/bearer string into a principal. A failed claim
// (wrong secret, unknown identifier, locked or revoked credential) always costs the same scrypt work and throws the
// same unauthenticated(), so an answer reveals nothing.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../platform/clock.js'
import { randomSecret, sha256Hex, sha256HexMemo, verifySecret, type HashMemo } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import { unauthenticated } from '../platform/errors.js'
import { createIdentityImport, type IdentityImport } from './import.js'
import * as repo from './repository.js'
import { checkDeviceSignature, legacyPartyLookupKey, partyLookupKey, partyLookupSecret, softCredentialLookupKey, tokenOf } from './secrets.js'
import type { AccessTokenResolver, Claim, CredentialSummary, Principal, SessionPrincipal, VerifiedCredential } from './types.js'

export const SESSION_TTL_MS = 15 * 60_000
export const MAX_FAILED_ATTEMPTS = 5
export const LOCKOUT_MS = 15 * 60_000
/**
 * Every account read checks its session, and that lookup cost as much as the rest of the read, so a verified
 * session is remembered this long. A logout takes effect at once in the process that served it and within this
 * time in other processes sharing the database; expiry is checked on every call.
 */
export const SESSION_CACHE_MS = 1_000
/**
 * Expired sessions are kept this long before they are deleted. Until then an expired token is still recognised,
 * so in the lenient sandbox it answers unauthenticated rather than reading as the any-string customer.
 */
export const SESSION_RETENTION_MS = 24 * 60 * 60_000
/**
 * Live soft credentials a customer may hold. Creating one more revokes the oldest (and ends its sessions): in the
 * lenient sandbox any string creates them for customer 1, and a script that makes one per run must keep working.
 */
export const MAX_SOFT_CREDENTIALS = 20
const SESSION_CACHE_ENTRIES = 10_000

export interface SignedIn {
  token: string
  expires: string
  customer: { id: string; isBusiness: boolean }
  restricted: boolean
}

/** Turns a presented Authorization/bearer string into a principal. */
export interface PrincipalResolver {
  /**
   * The principal of the token, or undefined when it is no token this server issued (a feature decides what an
   * unknown string means: the lenient sandbox reads it as its customer). Throws unauthenticated() for a missing
   * header and for a real token that no longer works (expired, revoked, a refresh token), so such a token never
   * falls back to the unknown-string rule.
   */
  resolvePrincipal(authorization: string | undefined): Promise<Principal | undefined>
  /**
   * Without waiting (the hot path): the principal of a session verified in the last SESSION_CACHE_MS;
   * NOT_A_TOKEN for a string resolvePrincipal found to be no token of this server in the last UNKNOWN_CACHE_MS;
   * otherwise undefined (ask resolvePrincipal).
   */
  recall(authorization: string | undefined, memo?: HashMemo): SessionPrincipal | typeof NOT_A_TOKEN | undefined
}

/** recall()'s answer for a string known to be no token this server issued. */
export const NOT_A_TOKEN = 'not-a-token' as const
/**
 * How long a string that is no token is remembered as such. Safe because tokens are 256-bit random values: a string
 * seen before it was issued cannot become a token. It spares the lenient sandbox's any-string path its database
 * lookups, which made it the slowest call of the sandbox.
 */
export const UNKNOWN_CACHE_MS = 5 * 60_000
const UNKNOWN_CACHE_ENTRIES = 10_000

/** Who is signing in, beyond the claim. */
export interface SignInContext {
  /**
   * The caller's source address (request.ip). With lockoutPerSource, failures and locks count per credential and
   * source; without a source they count per credential, as in production.
   */
  source?: string
}

export interface IdentityService extends PrincipalResolver {
  /** Checks a claim with the same scrypt work, lockout and uniform failure for every cause; opens no session. */
  verify(brand: string, lob: string, claim: Claim, context?: SignInContext): Promise<VerifiedCredential>
  /** verify, then opens a SESSION_TTL_MS session for the credential's customer. */
  signIn(brand: string, lob: string, claim: Claim, context?: SignInContext): Promise<SignedIn>
  /** Ends a login session at once (in this process; others within SESSION_CACHE_MS). */
  endSession(tokenHash: string): Promise<void>
  /** Ends the OAuth authorization an access token belongs to. */
  revokeAccessToken(tokenHash: string): Promise<void>
  /**
   * A soft credential for the customer, of the given type; returns the token, which is only stored hashed. Beyond
   * MAX_SOFT_CREDENTIALS live ones, the oldest is revoked.
   */
  createSoftCredential(customerId: string, tokenType: string): Promise<string>
  /** Operators: a customer's credentials, soft credentials included. */
  listCredentials(customerId: string): Promise<CredentialSummary[]>
  /** Operators: the customer with id `reference`, else the customers signing in with it (a username, a device id). */
  findCustomers(reference: string): Promise<string[]>
  /** Operators: a few customer ids, for a message that shows what one looks like. */
  someCustomerIds(limit: number): Promise<string[]>
  /** Operators: revokes one credential and ends the sessions it opened; a later claim with it fails like any other. */
  revokeCredential(id: string): Promise<boolean>
  customerExists(id: string): Promise<boolean>
  /** Identity's side of the importer (customers and credentials), run in the importer's transaction. */
  readonly importer: IdentityImport
}

export interface IdentityDeps {
  db: Pick<Db, 'kysely'>
  clock: Clock
  /** The server secret (config.secretsKey); the party lookup key is derived from it. */
  secretsKey: string
  /** Resolves OAuth access tokens; without it only login sessions are principals. */
  accessTokens?: AccessTokenResolver
  /**
   * Sandbox mode: count failures and lock per credential and source address, so a guessing run against the
   * published sandbox customers locks them for its sender only. Production locks the credential for everyone.
   */
  lockoutPerSource?: boolean
}

/** Housekeeping: deletes sessions expired over SESSION_RETENTION_MS ago. */
export function pruneSessions(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteSessionsExpiredBefore(db.kysely, new Date(clock.now().getTime() - SESSION_RETENTION_MS).toISOString())
}

/**
 * Housekeeping: deletes soft credentials revoked longer ago than a session lives plus its retention, so every
 * session they opened is gone first (a deleted session's token would read as customer 1 in the lenient sandbox).
 */
export function pruneRevokedSoftCredentials(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteSoftCredentialsRevokedBefore(db.kysely, new Date(clock.now().getTime() - SESSION_TTL_MS - SESSION_RETENTION_MS).toISOString())
}

/** Housekeeping: deletes per-source failure counts whose window and lock have ended. */
export function pruneSourceFailures(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteExpiredSourceFailures(db.kysely, clock.now().toISOString())
}

/** Whether a customer exists (the sandbox loader asks before loading). */
export async function customerExists(db: Pick<Db, 'kysely'>, id: string): Promise<boolean> {
  return (await repo.findCustomer(db.kysely, id)) !== undefined
}

export function createIdentityService(deps: IdentityDeps): IdentityService {
  const { db, clock, accessTokens } = deps
  const partyKey = partyLookupSecret(deps.secretsKey)
  const verified = new Map<string, { principal: SessionPrincipal; expiresAt: number; until: number }>()
  // Hashes of strings found to be no token, with when that finding lapses; bounded, oldest first out.
  const unknown = new Map<string, number>()

  /** The stored credential a claim names; for party identifiers also by the legacy unkeyed hash. */
  async function find(brand: string, lob: string, claim: Claim): Promise<{ credential?: repo.CredentialRow; rekeyTo?: string }> {
    switch (claim.kind) {
      case 'partyIdentifiers': {
        const key = partyLookupKey(partyKey, claim.party)
        // Both lookups always run, so the time taken does not tell a keyed row from a legacy or an unknown one.
        const [credential, legacy] = await Promise.all([
          repo.findCredential(db.kysely, brand, lob, claim.kind, key),
          repo.findCredential(db.kysely, brand, lob, claim.kind, legacyPartyLookupKey(claim.party)),
        ])
        if (credential) return { credential }
        return legacy ? { credential: legacy, rekeyTo: key } : {}
      }
      case 'token':
        return { credential: await repo.findCredential(db.kysely, brand, lob, claim.kind, softCredentialLookupKey(claim.token)) }
      default:
        return { credential: await repo.findCredential(db.kysely, brand, lob, claim.kind, claim.identifier) }
    }
  }

  /** The secret the stored scrypt hash must match; undefined for soft credentials, whose token is the secret. */
  function secretOf(claim: Claim): string | undefined {
    if (claim.kind === 'token') return undefined
    if (claim.kind === 'partyIdentifiers') return claim.mobile ?? ''
    return claim.secret
  }

  /** Proof beyond the secret: the device signature, and that a party claim presents a mobile at all. */
  function proven(claim: Claim, credential: repo.CredentialRow): boolean {
    if (claim.kind === 'deviceRegIdPasscode') return checkDeviceSignature(credential.public_key, claim.signed.message, claim.signed.signature)
    // A party credential without a mobile on record (an old import) holds the hash of '' and never matches this.
    if (claim.kind === 'partyIdentifiers') return claim.mobile !== undefined && claim.mobile !== ''
    return true
  }

  async function verify(brand: string, lob: string, claim: Claim, context?: SignInContext): Promise<VerifiedCredential> {
    const source = deps.lockoutPerSource ? context?.source : undefined
    const { credential, rekeyTo } = await find(brand, lob, claim)
    const now = clock.now()
    const nowIso = now.toISOString()
    const lockUntil = new Date(now.getTime() + LOCKOUT_MS).toISOString()
    const secret = secretOf(claim)

    // The scrypt work runs whatever was found, so timing does not tell an unknown identifier from a wrong secret;
    // the per-source lock is read meanwhile, hidden behind it.
    const [secretOk, sourceLocked] = await Promise.all([
      verifySecret(secret ?? '', credential?.secret_hash),
      credential && source !== undefined ? repo.sourceLocked(db.kysely, credential.id, source, nowIso) : false,
    ])
    const locked = sourceLocked || (credential?.locked_until != null && credential.locked_until > nowIso)
    const usable = credential !== undefined && credential.revoked_at === null && !locked
    const ok = usable && (secret === undefined || secretOk) && proven(claim, credential)

    if (!ok) {
      if (usable && source !== undefined) await repo.recordSourceFailure(db.kysely, credential.id, source, nowIso, MAX_FAILED_ATTEMPTS, lockUntil)
      else if (usable) await repo.recordFailure(db.kysely, credential.id, nowIso, MAX_FAILED_ATTEMPTS, lockUntil)
      throw unauthenticated()
    }
    // Each applies only if no lock (or revocation) landed meanwhile: parallel failures may have locked it.
    if (source !== undefined && !(await repo.clearSourceFailures(db.kysely, credential.id, source, nowIso))) throw unauthenticated()
    if (!(await repo.recordSuccess(db.kysely, credential.id, nowIso, rekeyTo))) throw unauthenticated()
    return { id: credential.id, customerId: credential.customer_id, restricted: credential.restricted === 1 }
  }

  function remember(tokenHash: string, principal: SessionPrincipal, expiresAt: number, now: number): void {
    if (verified.size >= SESSION_CACHE_ENTRIES) verified.delete(verified.keys().next().value!)
    verified.set(tokenHash, { principal, expiresAt, until: now + SESSION_CACHE_MS })
  }

  return {
    verify,

    async signIn(brand, lob, claim, context) {
      const credential = await verify(brand, lob, claim, context)
      const customer = await repo.findCustomer(db.kysely, credential.customerId)
      if (!customer) throw unauthenticated()
      const now = clock.now()
      const token = randomSecret(32)
      const expires = new Date(now.getTime() + SESSION_TTL_MS).toISOString()
      await repo.insertSession(db.kysely, {
        token_hash: sha256Hex(token),
        customer_id: customer.id,
        restricted: credential.restricted ? 1 : 0,
        expires_at: expires,
        revoked_at: null,
        created_at: now.toISOString(),
        credential_id: credential.id,
      })
      return { token, expires, customer: { id: customer.id, isBusiness: customer.is_business === 1 }, restricted: credential.restricted }
    },

    recall(authorization, memo) {
      const token = tokenOf(authorization)
      if (!token) return undefined
      const tokenHash = sha256HexMemo(token, memo)
      const now = clock.nowMs()
      const hit = verified.get(tokenHash)
      if (hit) return hit.until > now && hit.expiresAt > now ? hit.principal : undefined
      const until = unknown.get(tokenHash)
      return until !== undefined && until > now ? NOT_A_TOKEN : undefined
    },

    async resolvePrincipal(authorization) {
      const token = tokenOf(authorization)
      if (!token) throw unauthenticated([{ field: 'Authorization', reason: 'required header is missing' }])
      const tokenHash = sha256Hex(token)
      const now = clock.now().getTime()
      const hit = verified.get(tokenHash)
      if (hit && hit.until > now && hit.expiresAt > now) return hit.principal
      const session = await repo.findSession(db.kysely, tokenHash)
      if (session) {
        const expiresAt = Date.parse(session.expires_at)
        if (session.revoked_at !== null || expiresAt <= now) throw unauthenticated()
        const principal: SessionPrincipal = { source: 'session', customerId: session.customer_id, restricted: session.restricted === 1, tokenHash }
        remember(tokenHash, principal, expiresAt, now)
        return principal
      }
      // OAuth tokens are remembered by the token service only while nothing that decides them changes anywhere, so
      // their revocation holds everywhere at once.
      const access = await accessTokens?.find(tokenHash)
      if (!access) {
        if (unknown.size >= UNKNOWN_CACHE_ENTRIES) unknown.delete(unknown.keys().next().value!)
        unknown.set(tokenHash, now + UNKNOWN_CACHE_MS)
        return undefined
      }
      if (!access.active) throw unauthenticated()
      return {
        source: 'oauth',
        customerId: access.customerId,
        clientId: access.clientId,
        applicationId: access.applicationId,
        scopes: access.scopes,
        expiresAt: access.expiresAt,
        tokenHash,
        jkt: access.jkt,
        organizationId: access.organizationId,
      }
    },

    customerExists: (id) => customerExists(db, id),
    importer: createIdentityImport(deps.secretsKey),

    async endSession(tokenHash) {
      await repo.revokeSession(db.kysely, tokenHash, clock.now().toISOString())
      verified.delete(tokenHash)
    },

    async revokeAccessToken(tokenHash) {
      await accessTokens?.revoke(tokenHash)
    },

    async createSoftCredential(customerId, tokenType) {
      const customer = await repo.findCustomer(db.kysely, customerId)
      if (!customer) throw unauthenticated()
      const token = randomSecret(32)
      const id = randomUUID()
      const at = clock.now().toISOString()
      await repo.insertCredentials(db.kysely, [
        {
          id,
          customer_id: customer.id,
          kind: 'token',
          brand: customer.brand,
          lob: customer.lob,
          lookup_key: softCredentialLookupKey(token),
          secret_hash: null,
          public_key: null,
          token_type: tokenType,
          restricted: 0,
          failed_attempts: 0,
          locked_until: null,
          revoked_at: null,
          created_at: at,
        },
      ])
      // The oldest beyond the bound go, with their sessions, as if an operator had revoked them. Deliberately not
      // one transaction with the insert: the insert commits first, so the trim that starts last sees every row of
      // a burst and leaves at most the bound (in one transaction, PostgreSQL's concurrent trims would not see each
      // other's uncommitted rows and a burst could leave one extra per creation).
      const revoked = await repo.revokeSoftCredentialsBeyond(db.kysely, customer.id, id, MAX_SOFT_CREDENTIALS - 1, at)
      if (revoked.length > 0) {
        await repo.revokeSessionsOf(db.kysely, revoked, at)
        verified.clear()
      }
      return token
    },

    findCustomers: (reference) => repo.customersNamed(db.kysely, reference),
    someCustomerIds: (limit) => repo.someCustomerIds(db.kysely, limit),

    async listCredentials(customerId) {
      const nowIso = clock.now().toISOString()
      return (await repo.listCredentials(db.kysely, customerId)).map((c) => ({
        id: c.id,
        kind: c.kind,
        brand: c.brand,
        lob: c.lob,
        tokenType: c.token_type,
        restricted: c.restricted === 1,
        status: c.revoked_at !== null ? 'revoked' : c.locked_until !== null && c.locked_until > nowIso ? 'locked' : 'active',
        createdAt: c.created_at,
      }))
    },

    async revokeCredential(id) {
      const at = clock.now().toISOString()
      const revoked = await db.kysely.transaction().execute(async (trx) => {
        if (!(await repo.revokeCredential(trx, id, at))) return false
        await repo.revokeSessionsOf(trx, id, at)
        return true
      })
      // Sessions this process verified moments ago are not trusted past the revocation (other processes: within
      // SESSION_CACHE_MS, as for a logout).
      if (revoked) verified.clear()
      return revoked
    },
  }
}
