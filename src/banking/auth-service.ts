// Signing in and out: every credential kind of the login request, 15-minute Authorization tokens, soft
// credentials, and lockout after repeated failures. Wrong credentials, unknown users, locked and revoked
// credentials all get the same API-448 after the same scrypt work, so an answer reveals nothing.
import { createHash, createPublicKey, randomUUID, verify as verifySignature } from 'node:crypto'
import { invalid, unauthenticated } from '../platform/errors.js'
import type { Clock } from '../platform/clock.js'
import { randomSecret, sha256Hex, verifySecret } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import * as repo from './repository.js'
import { CREDENTIAL_KINDS, SOFT_CREDENTIAL_TYPES, type CredentialKind, type Credentials, type LoginBody } from './schemas.js'

export const ACCESS_TOKEN_TTL_MS = 15 * 60_000
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
 * so in the lenient sandbox it answers API-448 rather than reading as the any-string customer.
 */
export const SESSION_RETENTION_MS = 24 * 60 * 60_000
const SESSION_CACHE_ENTRIES = 10_000

/** Who a request acts for, from its Authorization header. */
export interface Principal {
  customerId: string
  restricted: boolean
  /** Absent for the sandbox's any-string Authorization, which has no session to revoke. */
  tokenHash?: string
  /** Where the token came from: a login session, or an OAuth access token granted on the consent page. */
  source?: 'session' | 'oauth'
}

/** An OAuth access token as the banking interface sees it. Built by the OAuth feature, passed in at wiring. */
export interface AccessGrant {
  /** The account holder who granted it; null for a client's own (client_credentials) token. */
  customerId: string | null
  /** The application whose key is the client_id; the token works only beside that key. Null for other clients. */
  applicationId: string | null
  scopes: readonly string[]
  /** Not expired and not revoked (itself or its whole refresh family). */
  active: boolean
}

export interface AccessGrants {
  find(tokenHash: string): Promise<AccessGrant | undefined>
  revoke(tokenHash: string): Promise<void>
}

/** The scope an OAuth access token needs to act on the banking interface. */
export const BANKING_SCOPE = 'accounts'

export interface LoginResult {
  token: string
  expires: string
  isBusinessUser: boolean
  isRestrictedToAppTracker: boolean
}

/** A credential as operators see it: never its secret, hash or lookup key. */
export interface CredentialSummary {
  id: string
  kind: string
  brand: string
  lob: string
  /** For soft credentials: softcredential or touch. */
  tokenType: string | null
  restricted: boolean
  status: 'active' | 'locked' | 'revoked'
  createdAt: string
}

export interface AuthService {
  login(body: LoginBody): Promise<LoginResult>
  /**
   * Checks a username and password (the OAuth consent page's sign-in) with the same hashing, lockout and
   * uniform failure as login, without opening a session. Throws API-448 on any failure.
   */
  verifyPassword(brand: string, lob: string, username: string, password: string): Promise<{ customerId: string }>
  /**
   * Resolves an Authorization header to a principal, or throws API-448. `applicationId` is the calling
   * application (its x-svc-key): an OAuth token granted to another application's key is refused.
   */
  authenticate(header: string | undefined, applicationId?: string): Promise<Principal>
  /** The principal of a session verified in the last SESSION_CACHE_MS, without waiting: the hot path. */
  recall(header: string | undefined): Principal | undefined
  logout(principal: Principal): Promise<void>
  createSoftCredential(principal: Principal, type: string): Promise<string>
  /** Operators: a customer's credentials, soft credentials included. */
  listCredentials(customerId: string): Promise<CredentialSummary[]>
  /** Operators: revokes one credential and ends the sessions it opened; a later login with it fails like any wrong credential. */
  revokeCredential(id: string): Promise<boolean>
}

export interface AuthOptions {
  /** Sandbox without strict tokens: an Authorization string that is no session reads as this customer. */
  lenientCustomerId?: string
}

/** The exact message a device signs for deviceRegIdPasscode (see README, "Device passcode signatures"). */
export function passcodeSigningInput(brand: string, lob: string, deviceRegId: string, passcode: string): string {
  return `deviceRegIdPasscode\n${brand}\n${lob}\n${deviceRegId}\n${passcode}`
}

/** Party identifiers are looked up by a hash of their normalised form, so the table holds no plain identity. */
export function partyLookupKey(firstGivenName: string, surname: string, dateOfBirth: string): string {
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ')
  return createHash('sha256').update(`${norm(firstGivenName)}|${norm(surname)}|${dateOfBirth}`).digest('hex')
}

interface Claim {
  lookupKey: string
  /** The secret checked against the stored scrypt hash; undefined for soft credentials, which are the secret. */
  secret: string | undefined
  /** Extra proof checked after the secret (the device signature). */
  proof?: (credential: repo.CredentialRow) => boolean
}

function claimFor(kind: CredentialKind, c: Credentials, brand: string, lob: string): Claim {
  switch (kind) {
    case 'usernamePassword':
      return { lookupKey: c.usernamePassword!.username, secret: c.usernamePassword!.password }
    case 'ivrPasscode':
      return { lookupKey: c.ivrPasscode!.username, secret: c.ivrPasscode!.passcode }
    case 'deviceRegIdPassword':
      return { lookupKey: c.deviceRegIdPassword!.deviceRegId, secret: c.deviceRegIdPassword!.password }
    case 'deviceRegIdFingerprint':
      return { lookupKey: c.deviceRegIdFingerprint!.deviceRegId, secret: c.deviceRegIdFingerprint!.key }
    case 'deviceRegIdPasscode': {
      const { deviceRegId, passcode, signature } = c.deviceRegIdPasscode!
      return {
        lookupKey: deviceRegId,
        secret: passcode,
        proof: (credential) => checkDeviceSignature(credential.public_key, passcodeSigningInput(brand, lob, deviceRegId, passcode), signature),
      }
    }
    case 'partyIdentifiers': {
      const p = c.partyIdentifiers!
      return { lookupKey: partyLookupKey(p.firstGivenName, p.surname, p.dateOfBirth), secret: p.mobile ?? '' }
    }
    case 'token':
      return { lookupKey: sha256Hex(c.token!.token), secret: undefined }
  }
}

function checkDeviceSignature(publicKeyPem: string | null, message: string, signature: string): boolean {
  if (!publicKeyPem) return false
  try {
    return verifySignature(null, Buffer.from(message, 'utf8'), createPublicKey(publicKeyPem), Buffer.from(signature, 'base64url'))
  } catch {
    return false
  }
}

/** The token of an Authorization header: sent bare, as real clients do, or after `Bearer `. */
function tokenOf(header: string | undefined): string | undefined {
  return header?.replace(/^Bearer\s+/i, '').trim()
}

/** apiStructType must name exactly the one credential member present. */
function credentialKind(credentials: Credentials): CredentialKind {
  const present = CREDENTIAL_KINDS.filter((k) => credentials[k] !== undefined)
  const named = credentials.apiStructType
  if (!(CREDENTIAL_KINDS as readonly string[]).includes(named)) {
    throw invalid([{ field: 'loginRequest.credentials.apiStructType', reason: `must be one of ${CREDENTIAL_KINDS.join(', ')}` }])
  }
  if (present.length !== 1 || present[0] !== named) {
    throw invalid([{ field: 'loginRequest.credentials', reason: 'apiStructType must name exactly the one credential member supplied' }])
  }
  return named as CredentialKind
}

/** Housekeeping: deletes sessions expired over SESSION_RETENTION_MS ago. */
export function pruneSessions(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteSessionsExpiredBefore(db.kysely, new Date(clock.now().getTime() - SESSION_RETENTION_MS).toISOString())
}

export function createAuthService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; grants?: AccessGrants; options?: AuthOptions }): AuthService {
  const { db, clock, grants } = deps
  const lenientCustomerId = deps.options?.lenientCustomerId
  const verified = new Map<string, { principal: Principal; expiresAt: number; until: number }>()

  /** The one place a claimed credential is checked: the same scrypt work and the same failure for every cause. */
  async function check(brand: string, lob: string, kind: CredentialKind, claim: Claim): Promise<repo.CredentialRow> {
    const credential = await repo.findCredential(db.kysely, brand, lob, kind, claim.lookupKey)
    const now = clock.now()
    const nowIso = now.toISOString()

    // The scrypt work runs whatever was found, so timing does not tell an unknown user from a wrong secret.
    const secretOk = await verifySecret(claim.secret ?? '', credential?.secret_hash)
    const proven = claim.secret === undefined || secretOk
    const locked = credential?.locked_until != null && credential.locked_until > nowIso
    const usable = credential !== undefined && credential.revoked_at === null && !locked
    const ok = usable && proven && (claim.proof?.(credential) ?? true)

    if (!ok) {
      if (usable) {
        const attempts = credential.failed_attempts + 1
        const lockedUntil = attempts >= MAX_FAILED_ATTEMPTS ? new Date(now.getTime() + LOCKOUT_MS).toISOString() : null
        await repo.recordFailure(db.kysely, credential.id, lockedUntil ? 0 : attempts, lockedUntil)
      }
      throw unauthenticated()
    }

    await repo.clearFailures(db.kysely, credential.id)
    return credential
  }

  return {
    async login(body) {
      const { brand, lob, credentials } = body.loginRequest
      const kind = credentialKind(credentials)
      const credential = await check(brand, lob, kind, claimFor(kind, credentials, brand, lob))
      const now = clock.now()
      const nowIso = now.toISOString()
      const customer = await repo.findCustomer(db.kysely, credential.customer_id)
      if (!customer) throw unauthenticated()
      const token = randomSecret(32)
      const expires = new Date(now.getTime() + ACCESS_TOKEN_TTL_MS).toISOString()
      await repo.insertSession(db.kysely, {
        token_hash: sha256Hex(token),
        customer_id: customer.id,
        restricted: credential.restricted,
        expires_at: expires,
        revoked_at: null,
        created_at: nowIso,
        credential_id: credential.id,
      })
      return { token, expires, isBusinessUser: customer.is_business === 1, isRestrictedToAppTracker: credential.restricted === 1 }
    },

    async verifyPassword(brand, lob, username, password) {
      const credential = await check(brand, lob, 'usernamePassword', { lookupKey: username, secret: password })
      return { customerId: credential.customer_id }
    },

    recall(header) {
      const token = tokenOf(header)
      if (!token) return undefined
      const hit = verified.get(sha256Hex(token))
      const now = clock.now().getTime()
      return hit && hit.until > now && hit.expiresAt > now ? hit.principal : undefined
    },

    async authenticate(header, applicationId) {
      const token = tokenOf(header)
      if (!token) throw unauthenticated([{ field: 'Authorization', reason: 'required header is missing' }])
      const tokenHash = sha256Hex(token)
      const now = clock.now().getTime()
      const hit = verified.get(tokenHash)
      if (hit && hit.until > now && hit.expiresAt > now) return hit.principal
      const session = await repo.findSession(db.kysely, tokenHash)
      if (session) {
        const expiresAt = Date.parse(session.expires_at)
        if (session.revoked_at !== null || expiresAt <= now) throw unauthenticated()
        const principal: Principal = { customerId: session.customer_id, restricted: session.restricted === 1, tokenHash, source: 'session' }
        if (verified.size >= SESSION_CACHE_ENTRIES) verified.delete(verified.keys().next().value!)
        verified.set(tokenHash, { principal, expiresAt, until: now + SESSION_CACHE_MS })
        return principal
      }
      const grant = await grants?.find(tokenHash)
      if (grant) {
        // A real OAuth token never falls back to the sandbox customer, even when it no longer works.
        if (!grant.active || grant.customerId === null || !grant.scopes.includes(BANKING_SCOPE)) throw unauthenticated()
        if (grant.applicationId !== null && grant.applicationId !== applicationId) throw unauthenticated()
        return { customerId: grant.customerId, restricted: false, tokenHash, source: 'oauth' }
      }
      // The sandbox accepts any other string as the first sandbox customer (banking spec, Authentication 3).
      if (lenientCustomerId) return { customerId: lenientCustomerId, restricted: false }
      throw unauthenticated()
    },

    async logout(principal) {
      if (!principal.tokenHash) return
      if (principal.source === 'oauth') await grants?.revoke(principal.tokenHash)
      else {
        await repo.revokeSession(db.kysely, principal.tokenHash, clock.now().toISOString())
        verified.delete(principal.tokenHash)
      }
    },

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

    async createSoftCredential(principal, type) {
      if (!(SOFT_CREDENTIAL_TYPES as readonly string[]).includes(type)) {
        throw invalid([{ field: 'tokenRequest.type', reason: `must be one of ${SOFT_CREDENTIAL_TYPES.join(', ')}` }])
      }
      const customer = await repo.findCustomer(db.kysely, principal.customerId)
      if (!customer) throw unauthenticated()
      const token = randomSecret(32)
      await repo.insertCredential(db.kysely, {
        id: randomUUID(),
        customer_id: customer.id,
        kind: 'token',
        brand: customer.brand,
        lob: customer.lob,
        lookup_key: sha256Hex(token),
        secret_hash: null,
        public_key: null,
        token_type: type,
        restricted: 0,
        failed_attempts: 0,
        locked_until: null,
        revoked_at: null,
        created_at: clock.now().toISOString(),
      })
      return token
    },
  }
}
