// Who a /reporting/v3 call is, by one of three schemes, chosen by its headers:
// - no Authorization: HTTP Signature (http-signature.ts), the hot path, free of the others' work; a write's
//   signature is remembered in the database (platform/replay-guard.ts) and refused a second time;
// - `Authorization: Bearer <three base64url parts>`: the official SDK's JWT (jwt.ts), under a reporting key's
//   shared secret (HS256) or a registered certificate (RS256), its jti remembered in the same place;
// - `Authorization: Bearer fat_…`: an OAuth access token of this server with scope `reporting`, acting for the
//   organization its grant was made for (its client's, or the merchant user's who allowed it).
// Each answers the organization the call acts for, or the reason it is refused (counted, never told).
import type { ReportingKeyService, SigningKey } from '../../applications/reporting-keys/service.js'
import type { AccessToken, AccessTokenResolver } from '../../identity/types.js'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { sha256Hex } from '../../platform/crypto.js'
import type { ReplayGuard } from '../../platform/replay-guard.js'
import { checkRequest, MAX_CLOCK_SKEW_MS, verifySignature, type Checked, type SignatureFailure, type SignedRequest } from './http-signature.js'
import { checkJwtClaims, looksLikeJwt, parseJwt, verifyJwtSignature, type JwtFailure } from './jwt.js'
import { TokenCredentials, type CallerThrottle } from './throttle.js'

/** The scope an OAuth access token needs on the reporting interface. */
export const REPORTING_SCOPE = 'reporting'
/** The methods whose HTTP Signature is not remembered (see spendSignature). */
const READS = new Set(['GET', 'HEAD'])
/** This server's OAuth access tokens (oauth/token/service.ts): `fat_` and base64url. */
const ACCESS_TOKEN = /^fat_[A-Za-z0-9_-]{1,128}$/

/** Why a bearer call was refused. */
export type BearerFailure =
  | 'two_schemes'
  | 'unsupported_scheme'
  | 'bad_token'
  | 'unknown_token'
  | 'inactive_token'
  | 'wrong_scope'
  | 'dpop_bound_token'
  | 'no_organization'
  | 'merchant_mismatch'

/** Every reason a reporting call is refused: a closed set, the label of the failure counter. */
export type ReportingAuthFailure = SignatureFailure | JwtFailure | BearerFailure

export type Scheme = 'http_signature' | 'jwt' | 'oauth'

/** Who a reporting call acts for, set by the gateway before any handler runs. */
export interface ActingOrganization {
  /** The organization the call acts for: the authenticated one, or the `organizationId` it named in its subtree. */
  id: string
  /** The merchant the credential authenticated for (`v-c-merchant-id`, or an OAuth token's organization). */
  authenticatedId: string
  scheme: Scheme
  /** The reporting key or certificate that signed, or the OAuth client the token was issued to. */
  credentialId: string
  /** The credential's own organization: the key's (a parent's in meta-key mode), or the token's. */
  credentialOrganizationId: string
}

export type Authentication =
  | { ok: true; acting: ActingOrganization; digest: string | undefined }
  | { ok: false; reason: ReportingAuthFailure }
  /** The credential has used its allowance: answered 429 with Retry-After, whether or not it would verify. */
  | { ok: false; reason: 'throttled'; retryAfter: number }

export interface ReportingAuthenticatorDeps {
  keys: Pick<ReportingKeyService, 'signingKey' | 'recallSigningKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'mayActFor' | 'recallMayActFor'>
  /** OAuth access tokens (the OAuth feature's token service, passed in: reporting never imports OAuth). */
  tokens: Pick<AccessTokenResolver, 'find' | 'recall'>
  /** The one memory of credentials already used (JWT ids, signatures of writes), shared across processes. */
  replay: Pick<ReplayGuard, 'spend'>
  /** Calls per credential (throttle.ts): checked before verification, counted once the credential is verified. */
  throttle: CallerThrottle
  clock: Clock
}

export interface ReportingAuthenticator {
  /**
   * HTTP Signature: the signature, date and key; the body's digest is the gateway's to check. Answered without a
   * promise when nothing needs the database (a read, its key and its organizations known to this process).
   */
  signature(request: SignedRequest): Authentication | Promise<Authentication>
  /**
   * An `Authorization` header: a JWT or an OAuth access token. An access token is answered without a promise when
   * nothing needs the database (the token and its organizations known to this process); a JWT always waits (its jti
   * is spent).
   */
  bearer(request: SignedRequest, authorization: string): Authentication | Promise<Authentication>
}

type CheckedSignature = Extract<Checked, { ok: true }>

const refuse = (reason: ReportingAuthFailure): Authentication => ({ ok: false, reason })
const throttled = (retryAfter: number): Authentication => ({ ok: false, reason: 'throttled', retryAfter })

export function createReportingAuthenticator(deps: ReportingAuthenticatorDeps): ReportingAuthenticator {
  const { keys, organizations, tokens, replay, throttle, clock } = deps
  const tokenCredentials = new TokenCredentials()

  async function jwt(token: string, request: SignedRequest): Promise<Authentication> {
    const parsed = parseJwt(token)
    if (!parsed.ok) return parsed
    const { jwt } = parsed
    const now = clock.now().getTime()
    // The cheap checks first: an expired or misdirected token costs no database read.
    const checked = checkJwtClaims(jwt.claims, request, now)
    if (!checked.ok) return checked
    const { claims } = checked
    // A shared secret's JWT counts against its reporting key, as the key's signatures do; a certificate's by its kid.
    const credential = jwt.alg === 'HS256' ? `key ${jwt.kid}` : `certificate ${jwt.kid}`
    const spent = throttle.over(credential, request.source)
    if (spent !== undefined) return throttled(spent)
    let signer: { id: string; organizationId: string }
    // The algorithm picks where the kid is looked up, so a certificate can never serve as an HMAC secret.
    if (jwt.alg === 'HS256') {
      const key = await keys.signingKey(jwt.kid)
      if (!key) return refuse('unknown_key')
      if (!verifyJwtSignature(jwt, { secret: key.secret })) return refuse('bad_signature')
      signer = key
    } else {
      const candidates = await keys.certificates(jwt.kid)
      if (candidates.length === 0) return refuse('unknown_key')
      const certificate = candidates.find((c) => verifyJwtSignature(jwt, { publicKey: c.publicKey }))
      if (!certificate) return refuse('bad_signature')
      if (now < Date.parse(certificate.notBefore) || now > Date.parse(certificate.notAfter)) return refuse('certificate_expired')
      signer = certificate
    }
    if (claims.issuer !== signer.organizationId) return refuse('jwt_issuer')
    // Counted once verified, before the database is asked anything more and before the jti is spent (a 429 spends none).
    const wait = throttle.take(credential, request.source)
    if (wait !== undefined) return throttled(wait)
    // The SDK sends no v-c-merchant-id header with a JWT; one that is sent must agree with the signed claim.
    const header = request.header('v-c-merchant-id')
    if (header !== undefined && header !== claims.merchantId) return refuse('merchant_mismatch')
    if (!(await organizations.mayActFor(signer.organizationId, claims.merchantId))) return refuse('merchant_not_allowed')
    // Last, so only a token that would otherwise be admitted spends its jti (per key: ids are the signer's).
    if (!(await spendJti(signer.id, claims.jti, new Date(claims.rememberUntil), request.method))) return refuse('jwt_replayed')
    const acting = { id: claims.merchantId, authenticatedId: claims.merchantId, scheme: 'jwt', credentialId: signer.id, credentialOrganizationId: signer.organizationId } as const
    return { ok: true, acting, digest: claims.digest }
  }

  /**
   * A token is single-use, except that a GET's may be shown twice: the official SDK's file download (ApiClient, for
   * an Accept of application/xml or text/csv) sends each request twice with the same headers, streaming the file from
   * the first and answering its callback from the second. The cost: a captured GET token, bound to its method, path
   * and host, can be replayed once more within its two minutes; any other method's token never.
   */
  function spendJti(signerId: string, jti: string, until: Date, method: string): Promise<boolean> {
    return replay.spend(sha256Hex(`${signerId} ${jti}`), until, method === 'GET' ? 2 : 1)
  }

  /**
   * A write's signature is single-use while its date is within the window (the signature itself names the use: it
   * covers method, path, date, digest and merchant, and whatever unsigned header comes with it, a replay is the same
   * signature). A read's is not remembered: a signature has no nonce, so identical GETs within one second (a poller,
   * the SDK's download sent twice, a client's parallel reads) are one signature, and a replayed read changes nothing.
   */
  function spendSignature(keyId: string, signature: string, signedAt: number, method: string): Promise<boolean> {
    if (READS.has(method.toUpperCase())) return Promise.resolve(true)
    return replay.spend(sha256Hex(`signature ${keyId} ${signature}`), new Date(signedAt + MAX_CLOCK_SKEW_MS + 1000))
  }

  function oauth(token: string, request: SignedRequest): Authentication | Promise<Authentication> {
    if (!ACCESS_TOKEN.test(token)) return refuse('bad_token')
    const hash = sha256Hex(token)
    // A token seen before is checked against its credential's allowance before it is looked up.
    const known = tokenCredentials.get(hash)
    const spent = known === undefined ? undefined : throttle.over(known, request.source)
    if (spent !== undefined) return throttled(spent)
    // A token read since the last change to the tables that decide it, anywhere, is at hand.
    const recalled = tokens.recall(hash)
    if (recalled) return tokenAdmits(hash, recalled, request)
    return tokens.find(hash).then((found) => (found ? tokenAdmits(hash, found, request) : refuse('unknown_token')))
  }

  /** The access token's checks once it is found; without waiting when the merchant is its own or its lineage is known. */
  function tokenAdmits(hash: string, found: AccessToken, request: SignedRequest): Authentication | Promise<Authentication> {
    // Expired, revoked (itself, its grant, its client), or a refresh token sent as an access token.
    if (!found.active) return refuse('inactive_token')
    // A banking token (scope accounts) never opens reporting.
    if (!found.scopes.includes(REPORTING_SCOPE)) return refuse('wrong_scope')
    // Reporting takes no DPoP proofs, and a bound token is worthless without one (RFC 9449 7.1).
    if (found.jkt !== null) return refuse('dpop_bound_token')
    const organization = found.organizationId
    if (organization === null) return refuse('no_organization')
    // Per client and the organization its grant is for: a partner's client has one allowance per merchant that allowed it.
    const credential = `oauth ${found.clientId} ${organization}`
    tokenCredentials.set(hash, credential)
    const wait = throttle.take(credential, request.source)
    if (wait !== undefined) return throttled(wait)
    // Like a meta key: a v-c-merchant-id header may name the token's organization or one below it.
    const merchant = request.header('v-c-merchant-id') ?? organization
    const acting = { id: merchant, authenticatedId: merchant, scheme: 'oauth', credentialId: found.clientId, credentialOrganizationId: organization } as const
    const admitted: Authentication = { ok: true, acting, digest: undefined }
    if (merchant === organization) return admitted
    const allowed = organizations.recallMayActFor(organization, merchant)
    if (allowed !== undefined) return allowed ? admitted : refuse('merchant_not_allowed')
    return organizations.mayActFor(organization, merchant).then((ok) => (ok ? admitted : refuse('merchant_not_allowed')))
  }

  /** The signature's checks once its key is found; without waiting when the organization's lineage is known and the call is a read. */
  function signedBy(request: SignedRequest, checked: CheckedSignature, credential: string, key: SigningKey): Authentication | Promise<Authentication> {
    if (!verifySignature(request, checked.params, key)) return refuse('bad_signature')
    // Counted once verified, before the database is asked anything more and before the signature is spent.
    const wait = throttle.take(credential, request.source)
    if (wait !== undefined) return throttled(wait)
    const acting = { id: checked.merchantId, authenticatedId: checked.merchantId, scheme: 'http_signature', credentialId: key.id, credentialOrganizationId: key.organizationId } as const
    const admitted: Authentication = { ok: true, acting, digest: checked.digest }
    const allowed = organizations.recallMayActFor(key.organizationId, checked.merchantId)
    if (allowed === false) return refuse('merchant_not_allowed')
    if (allowed === true && READS.has(request.method)) return admitted
    return (async () => {
      if (allowed === undefined && !(await organizations.mayActFor(key.organizationId, checked.merchantId))) return refuse('merchant_not_allowed')
      // Last, so only a signature that would otherwise be admitted is spent.
      if (!(await spendSignature(key.id, checked.params.signature, checked.signedAt, request.method))) return refuse('signature_replayed')
      return admitted
    })()
  }

  return {
    signature(request) {
      const checked = checkRequest(request, clock.now())
      if (!checked.ok) return checked
      // Before the key's row and the HMAC: a spent allowance is refused for the price of a map lookup.
      const credential = `key ${checked.params.keyId}`
      const spent = throttle.over(credential, request.source)
      if (spent !== undefined) return throttled(spent)
      // A key verified since the last key change anywhere is at hand: a read is then answered without waiting.
      const recalled = keys.recallSigningKey(checked.params.keyId)
      if (recalled) return signedBy(request, checked, credential, recalled)
      return keys.signingKey(checked.params.keyId).then((key) => (key ? signedBy(request, checked, credential, key) : refuse('unknown_key')))
    },

    bearer(request, authorization) {
      // One credential per call: a signature beside a bearer token is ambiguous, so neither is trusted.
      if (request.header('signature') !== undefined) return refuse('two_schemes')
      const token = /^Bearer +([^\s]+) *$/i.exec(authorization)?.[1]
      if (token === undefined) return refuse('unsupported_scheme')
      return looksLikeJwt(token) ? jwt(token, request) : oauth(token, request)
    },
  }
}
