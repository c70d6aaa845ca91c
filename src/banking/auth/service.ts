// The banking interface's sign-in rules on top of identity: the login request (every credential kind of the spec,
// apiStructType naming the one member present), the login response, soft credentials, logout, the sandbox's
// any-string Authorization, and which OAuth access tokens may act here. Verifying secrets, lockout and sessions
// are identity's (src/identity/).
import { invalid, unauthenticated } from '../../platform/errors.js'
import { NOT_A_TOKEN, type IdentityService, type SignInContext } from '../../identity/service.js'
import type { Claim, Principal } from '../../identity/types.js'
import type { HashMemo } from '../../platform/crypto.js'
import type { DpopVerifier } from '../../platform/dpop.js'
import { CREDENTIAL_KINDS, SOFT_CREDENTIAL_TYPES, type CredentialKind, type Credentials, type LoginBody } from './schemas.js'

/** The scope an OAuth access token needs to act on the banking interface. */
export const BANKING_SCOPE = 'accounts'

/** Who a banking request acts for, from its Authorization header. */
export interface BankingPrincipal {
  customerId: string
  /** A party-identifiers login: application tracking only, no account reads. */
  restricted: boolean
  /** Absent for the sandbox's any-string Authorization, which has no session to revoke. */
  tokenHash?: string
  /** Where the token came from: a login session, or an OAuth access token granted on the consent page. */
  source?: 'session' | 'oauth'
}

export interface LoginResult {
  token: string
  expires: string
  isBusinessUser: boolean
  isRestrictedToAppTracker: boolean
}

export interface AuthService {
  /** `context.source` is the caller's address: the sandbox counts failed sign-ins per source. */
  login(body: LoginBody, context?: SignInContext): Promise<LoginResult>
  /**
   * Resolves an Authorization header to a principal, or throws unauthenticated (API-448). `applicationId` is the
   * calling application (its x-svc-key): an OAuth token granted to another application's key is refused.
   */
  authenticate(header: string | undefined, applicationId?: string, proof?: RequestProof): Promise<BankingPrincipal>
  /** The principal of a session verified in the last second, without waiting: the hot path. */
  recall(header: string | undefined, memo?: HashMemo): BankingPrincipal | undefined
  /** Ends a session; an OAuth access token's logout ends its whole grant. */
  logout(principal: BankingPrincipal): Promise<void>
  createSoftCredential(principal: BankingPrincipal, type: string): Promise<string>
}

/** The request a DPoP-scheme Authorization came with: what its proof must name, and the proof (the DPoP header). */
export interface RequestProof {
  method: string
  url: string
  proof: string | string[] | undefined
}

export interface AuthOptions {
  /** Sandbox without strict tokens: an Authorization string that is no token reads as this customer. */
  lenientCustomerId?: string
}

/** The exact message a device signs for deviceRegIdPasscode (see README, "Device passcode signatures"). */
export function passcodeSigningInput(brand: string, lob: string, deviceRegId: string, passcode: string): string {
  return `deviceRegIdPasscode\n${brand}\n${lob}\n${deviceRegId}\n${passcode}`
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

/** The identity claim a login request's credential member makes. */
export function claimFor(kind: CredentialKind, c: Credentials, brand: string, lob: string): Claim {
  switch (kind) {
    case 'usernamePassword':
      return { kind, identifier: c.usernamePassword!.username, secret: c.usernamePassword!.password }
    case 'ivrPasscode':
      return { kind, identifier: c.ivrPasscode!.username, secret: c.ivrPasscode!.passcode }
    case 'deviceRegIdPassword':
      return { kind, identifier: c.deviceRegIdPassword!.deviceRegId, secret: c.deviceRegIdPassword!.password }
    case 'deviceRegIdFingerprint':
      return { kind, identifier: c.deviceRegIdFingerprint!.deviceRegId, secret: c.deviceRegIdFingerprint!.key }
    case 'deviceRegIdPasscode': {
      const { deviceRegId, passcode, signature } = c.deviceRegIdPasscode!
      return { kind, identifier: deviceRegId, secret: passcode, signed: { message: passcodeSigningInput(brand, lob, deviceRegId, passcode), signature } }
    }
    case 'partyIdentifiers': {
      const { firstGivenName, surname, dateOfBirth, mobile } = c.partyIdentifiers!
      return { kind, party: { firstGivenName, surname, dateOfBirth }, mobile }
    }
    case 'token':
      return { kind, token: c.token!.token }
  }
}

/**
 * What an identity principal may do here: a session acts for its customer; an OAuth token needs the banking scope
 * and an account holder. A token that acts for an organization (a reporting client's, or one a merchant user
 * allowed) is a reporting token and never opens banking, whatever its scopes.
 */
function bankingPrincipal(principal: Principal, applicationId: string | undefined): BankingPrincipal {
  if (principal.source === 'session') return principal
  if (principal.customerId === null || principal.organizationId !== null || !principal.scopes.includes(BANKING_SCOPE)) throw unauthenticated()
  // Granted to an application's key (the spec's client_id), it works beside that key only.
  if (principal.applicationId !== null && principal.applicationId !== applicationId) throw unauthenticated()
  return { customerId: principal.customerId, restricted: false, tokenHash: principal.tokenHash, source: 'oauth' }
}

export function createAuthService(deps: { identity: IdentityService; dpop?: DpopVerifier; options?: AuthOptions }): AuthService {
  const { identity, dpop } = deps

  /**
   * `Authorization: DPoP <token>` (RFC 9449 7.1): only a DPoP-bound access token, with a fresh proof by its key for
   * this method and URL, bound to the token (ath). Never the sandbox's any-string customer.
   */
  async function authenticateDpop(header: string, applicationId: string | undefined, proof: RequestProof | undefined): Promise<BankingPrincipal> {
    const token = header.replace(/^DPoP\s+/i, '').trim()
    const principal = token === '' ? undefined : await identity.resolvePrincipal(token)
    if (!principal || principal.source !== 'oauth' || principal.jkt === null || !proof || !dpop) {
      throw unauthenticated([{ field: 'Authorization', reason: 'the DPoP scheme needs a DPoP-bound access token' }])
    }
    const checked = await dpop.verify(proof.proof, { method: proof.method, url: proof.url, accessToken: token })
    if (!checked.ok) throw unauthenticated([{ field: 'DPoP', reason: checked.reason }])
    if (checked.jkt !== principal.jkt) throw unauthenticated([{ field: 'DPoP', reason: 'the DPoP proof is not signed by the key the token is bound to' }])
    return bankingPrincipal(principal, applicationId)
  }
  const lenientCustomerId = deps.options?.lenientCustomerId
  const lenientPrincipal: BankingPrincipal | undefined = lenientCustomerId ? Object.freeze({ customerId: lenientCustomerId, restricted: false }) : undefined

  return {
    async login(body, context) {
      const { brand, lob, credentials } = body.loginRequest
      const kind = credentialKind(credentials)
      const r = await identity.signIn(brand, lob, claimFor(kind, credentials, brand, lob), context)
      return { token: r.token, expires: r.expires, isBusinessUser: r.customer.isBusiness, isRestrictedToAppTracker: r.restricted }
    },

    // A session principal already has the banking principal's shape: returned as is, with no allocation. A string
    // identity recently found to be no token is the lenient sandbox's customer at once, with no database work.
    recall(header, memo): BankingPrincipal | undefined {
      const known = identity.recall(header, memo)
      if (known !== NOT_A_TOKEN) return known
      return lenientPrincipal
    },

    async authenticate(header, applicationId, proof) {
      if (proof !== undefined && header !== undefined) return authenticateDpop(header, applicationId, proof)
      const principal = await identity.resolvePrincipal(header)
      // A DPoP-bound token is worthless without its key: sent as a bearer token it is refused (RFC 9449 7.1).
      if (principal?.source === 'oauth' && principal.jkt !== null) {
        throw unauthenticated([{ field: 'Authorization', reason: 'a DPoP-bound token must be sent as Authorization: DPoP <token> with a DPoP proof' }])
      }
      if (principal) return bankingPrincipal(principal, applicationId)
      // The sandbox accepts any other string as the first sandbox customer (banking spec, Authentication 3).
      if (lenientPrincipal) return lenientPrincipal
      throw unauthenticated()
    },

    async logout(principal) {
      if (!principal.tokenHash) return
      if (principal.source === 'oauth') await identity.revokeAccessToken(principal.tokenHash)
      else await identity.endSession(principal.tokenHash)
    },

    async createSoftCredential(principal, type) {
      if (!(SOFT_CREDENTIAL_TYPES as readonly string[]).includes(type)) {
        throw invalid([{ field: 'tokenRequest.type', reason: `must be one of ${SOFT_CREDENTIAL_TYPES.join(', ')}` }])
      }
      return identity.createSoftCredential(principal.customerId, type)
    },
  }
}
