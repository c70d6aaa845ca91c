// Signing in and out: every credential kind of the login request, 15-minute Authorization tokens, soft
// credentials, and lockout after repeated failures. Wrong credentials, unknown users, locked and revoked
// credentials all get the same API-448 after the same scrypt work, so an answer reveals nothing.
import { createHash, createPublicKey, randomUUID, verify as verifySignature } from 'node:crypto'
import { ApiError } from '../platform/errors.js'
import type { Clock } from '../platform/clock.js'
import { randomSecret, sha256Hex, verifySecret } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import * as repo from './repository.js'
import { CREDENTIAL_KINDS, SOFT_CREDENTIAL_TYPES, type CredentialKind, type Credentials, type LoginBody } from './schemas.js'

export const ACCESS_TOKEN_TTL_MS = 15 * 60_000
export const MAX_FAILED_ATTEMPTS = 5
export const LOCKOUT_MS = 15 * 60_000

/** Who a request acts for, from its Authorization header. */
export interface Principal {
  customerId: string
  restricted: boolean
  /** Absent for the sandbox's any-string Authorization, which has no session to revoke. */
  tokenHash?: string
}

export interface LoginResult {
  token: string
  expires: string
  isBusinessUser: boolean
  isRestrictedToAppTracker: boolean
}

export interface AuthService {
  login(body: LoginBody): Promise<LoginResult>
  /** Resolves an Authorization header to a principal, or throws API-448. */
  authenticate(header: string | undefined): Promise<Principal>
  logout(principal: Principal): Promise<void>
  createSoftCredential(principal: Principal, type: string): Promise<string>
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

/** apiStructType must name exactly the one credential member present. */
function credentialKind(credentials: Credentials): CredentialKind {
  const present = CREDENTIAL_KINDS.filter((k) => credentials[k] !== undefined)
  const named = credentials.apiStructType
  if (!(CREDENTIAL_KINDS as readonly string[]).includes(named)) {
    throw new ApiError('API-420', [{ field: 'loginRequest.credentials.apiStructType', reason: `must be one of ${CREDENTIAL_KINDS.join(', ')}` }])
  }
  if (present.length !== 1 || present[0] !== named) {
    throw new ApiError('API-420', [{ field: 'loginRequest.credentials', reason: 'apiStructType must name exactly the one credential member supplied' }])
  }
  return named as CredentialKind
}

export function createAuthService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; options?: AuthOptions }): AuthService {
  const { db, clock } = deps
  const lenientCustomerId = deps.options?.lenientCustomerId

  return {
    async login(body) {
      const { brand, lob, credentials } = body.loginRequest
      const kind = credentialKind(credentials)
      const claim = claimFor(kind, credentials, brand, lob)
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
        throw new ApiError('API-448')
      }

      await repo.clearFailures(db.kysely, credential.id)
      const customer = await repo.findCustomer(db.kysely, credential.customer_id)
      if (!customer) throw new ApiError('API-448')
      const token = randomSecret(32)
      const expires = new Date(now.getTime() + ACCESS_TOKEN_TTL_MS).toISOString()
      await repo.insertSession(db.kysely, {
        token_hash: sha256Hex(token),
        customer_id: customer.id,
        restricted: credential.restricted,
        expires_at: expires,
        revoked_at: null,
        created_at: nowIso,
      })
      return { token, expires, isBusinessUser: customer.is_business === 1, isRestrictedToAppTracker: credential.restricted === 1 }
    },

    async authenticate(header) {
      const token = header?.replace(/^Bearer\s+/i, '').trim()
      if (!token) throw new ApiError('API-448', [{ field: 'Authorization', reason: 'required header is missing' }])
      const tokenHash = sha256Hex(token)
      const session = await repo.findSession(db.kysely, tokenHash)
      if (session) {
        if (session.revoked_at !== null || session.expires_at <= clock.now().toISOString()) throw new ApiError('API-448')
        return { customerId: session.customer_id, restricted: session.restricted === 1, tokenHash }
      }
      // The sandbox accepts any other string as the first sandbox customer (banking spec, Authentication 3).
      if (lenientCustomerId) return { customerId: lenientCustomerId, restricted: false }
      throw new ApiError('API-448')
    },

    async logout(principal) {
      if (principal.tokenHash) await repo.revokeSession(db.kysely, principal.tokenHash, clock.now().toISOString())
    },

    async createSoftCredential(principal, type) {
      if (!(SOFT_CREDENTIAL_TYPES as readonly string[]).includes(type)) {
        throw new ApiError('API-420', [{ field: 'tokenRequest.type', reason: `must be one of ${SOFT_CREDENTIAL_TYPES.join(', ')}` }])
      }
      const customer = await repo.findCustomer(db.kysely, principal.customerId)
      if (!customer) throw new ApiError('API-448')
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
