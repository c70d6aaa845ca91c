// Authenticating a merchant-family case when it is sent: an HTTP Signature (host, date, request-target, digest,
// v-c-merchant-id, as test/support/reporting.ts signs and the official SDK does), the SDK's JWT (HS256 under a
// reporting key's secret, RS256 under a registered certificate) or an OAuth bearer token, made over the request as
// finally mangled (its method, target, Host and body bytes) with a fresh date. A case may name one fault in its own
// authentication (Auth.mangle): a stale date, a wrong secret, a digest of another body, an expired JWT, a banking
// token… each answered 401 by the contract. Every secret used here is one the log check looks for.
import { createHash, createHmac, randomBytes, type KeyObject } from 'node:crypto'
import fc from 'fast-check'
import { makeJwt, type TestCertificate } from '../support/reporting-jwt.js'
import { junkString, junkValue } from './mangle.js'
import type { Auth, FuzzCase } from './wire.js'

type HttpCase = Extract<FuzzCase, { type: 'http' }>
type Header = [string, string]

export interface ReportingKey {
  id: string
  secret: string
  org: string
}

/** What signing needs at send time; none of it is in a case, so a printed case holds no secret. */
export interface MerchantCredentials {
  /** The server's clock (a test's fake clock): dates and JWT times are taken from it. */
  now(): Date
  keys: Record<Auth['key'], ReportingKey>
  /** A certificate registered for testrest (RS256); without one, RS256 cases sign with HS256. */
  certificate?: { serialNumber: string; privateKey: KeyObject; certificatePem: string }
  /** OAuth access tokens (scope reporting) of the sandbox clients, by the organization they act for. */
  tokens: Partial<Record<Auth['key'], string>>
  /** Tokens this server issued that must not open reporting (a refresh token, a banking access token). */
  wrongTokens: string[]
}

export const SIGNATURE_FAULTS = [
  'date-stale', 'date-future', 'date-junk', 'date-rfc850', 'drop-date', 'drop-signature', 'drop-digest', 'drop-merchant', 'junk-signature',
  'junk-merchant', 'junk-digest', 'repeat-signature', 'repeat-date', 'wrong-secret', 'unknown-keyid', 'junk-keyid', 'algorithm', 'names-no-digest',
  'names-extra', 'names-uppercase', 'names-duplicate', 'names-junk', 'param-repeated', 'param-unquoted', 'signature-truncated', 'signature-not-base64',
  'digest-other-body', 'digest-sha512', 'digest-lowercase', 'target-without-query', 'method-other', 'host-other', 'merchant-other', 'merchant-parent',
  'merchant-unknown', 'both-schemes',
] as const
export const JWT_FAULTS = [
  'alg-none', 'alg-confusion', 'alg-rs512', 'kid-unknown', 'kid-junk', 'expired', 'stale-iat', 'future-iat', 'path-other', 'method-other', 'digest-other',
  'digest-missing', 'iss-other', 'merchant-other', 'merchant-header-mismatch', 'signature-flipped', 'claim-junk', 'claim-drop', 'jti-fixed', 'crit',
  'typ-junk', 'oversized', 'scheme-lowercase', 'with-signature-header', 'token-junk',
] as const
export const OAUTH_FAULTS = [
  'token-unknown', 'token-junk', 'token-wrong-kind', 'scheme-basic', 'scheme-lowercase', 'no-token', 'merchant-other', 'merchant-unknown',
  'two-authorizations', 'with-signature-header',
] as const
const CLAIMS = ['iat', 'exp', 'nbf', 'jti', 'iss', 'v-c-merchant-id', 'request-method', 'request-resource-path', 'request-host', 'digest', 'digest-algorithm', 'v-c-jwt-version']

const json = (v: unknown) => JSON.stringify(v) ?? 'null'

/** One fault in a case's authentication: its kind, and the junk (text, or a JSON value's text) it uses. */
export function authFault(scheme: Auth['scheme']): fc.Arbitrary<NonNullable<Auth['mangle']>> {
  const kinds = scheme === 'signature' ? SIGNATURE_FAULTS : scheme === 'oauth' ? OAUTH_FAULTS : JWT_FAULTS
  return fc.tuple(fc.constantFrom(...kinds), junkString, junkValue, fc.constantFrom(...CLAIMS)).map(([kind, text, value, claim]) => {
    if (kind === 'claim-junk') return { kind, value: `${claim}=${json(value)}` }
    if (kind === 'claim-drop') return { kind, value: claim }
    if (kind === 'token-wrong-kind') return { kind, value: String(text.length) }
    if (kind === 'algorithm') return { kind, value: ['HmacSHA1', 'hmacsha256', 'HMACSHA256', 'RSA-SHA256', 'hmac-sha256', '', text][text.length % 7]! }
    return /junk/.test(kind) ? { kind, value: text } : { kind }
  })
}

const first = (headers: Header[], name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1]
const oneLine = (s: string) => s.replace(/[\r\n]/g, '')
const hmac = (secret: string, text: string) => createHmac('sha256', Buffer.from(secret, 'base64')).update(text, 'utf8').digest('base64')
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('base64')
const BODY_METHODS = ['POST', 'PUT', 'PATCH']

/** The case as sent: its auth headers added (after its own), signed over its final method, target, Host and body. */
export function authenticate(c: HttpCase, creds: MerchantCredentials): HttpCase {
  if (!c.auth) return c
  const { auth, ...rest } = c
  const added = auth.scheme === 'signature' ? signature(c, auth, creds) : auth.scheme === 'oauth' ? bearer(auth, creds) : jwt(c, auth, creds)
  return { ...rest, headers: [...c.headers, ...added.map(([n, v]) => [n, oneLine(v)] as Header)] }
}

function signature(c: HttpCase, auth: Auth, creds: MerchantCredentials): Header[] {
  const fault = auth.mangle?.kind
  const junk = auth.mangle?.value ?? ''
  const key = creds.keys[auth.key]
  const now = creds.now().getTime()
  const withBody = BODY_METHODS.includes(c.method)
  const body = Buffer.from(c.body ?? '', 'utf8')
  const date = fault === 'date-stale' ? new Date(now - 6 * 60_000).toUTCString()
    : fault === 'date-future' ? new Date(now + 6 * 60_000).toUTCString()
    : fault === 'date-rfc850' ? new Date(now).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+)/, '$1day, $2-$3-$4')
    : fault === 'date-junk' ? junk
    : new Date(now).toUTCString()
  const digest = fault === 'digest-other-body' ? `SHA-256=${sha256(Buffer.concat([body, Buffer.from(' ')]))}`
    : fault === 'digest-sha512' ? `SHA-512=${createHash('sha512').update(body).digest('base64')}`
    : fault === 'digest-lowercase' ? `sha-256=${sha256(body)}`
    : `SHA-256=${sha256(body)}`
  const merchant = fault === 'merchant-other' ? 'othermerchant' : fault === 'merchant-parent' ? 'testrest_reseller' : fault === 'merchant-unknown' ? 'nosuchmerchant' : (auth.merchant ?? key.org)
  let names = ['host', 'date', 'request-target', ...(withBody ? ['digest'] : []), 'v-c-merchant-id']
  if (fault === 'names-no-digest') names = names.filter((n) => n !== 'digest')
  if (fault === 'names-extra') names = [...names, 'user-agent']
  if (fault === 'names-uppercase') names = names.map((n) => n.toUpperCase())
  if (fault === 'names-duplicate') names = [...names, 'date']
  const values: Record<string, string> = {
    host: fault === 'host-other' ? 'evil.example' : (first(c.headers, 'host') ?? ''),
    date,
    'request-target': `${(fault === 'method-other' ? (c.method === 'GET' ? 'post' : 'get') : c.method).toLowerCase()} ${fault === 'target-without-query' ? c.target.split('?')[0] : c.target}`,
    digest,
    'v-c-merchant-id': key.org,
  }
  const secret = fault === 'wrong-secret' ? randomBytes(32).toString('base64') : key.secret
  let sig = hmac(secret, names.map((n) => `${n.toLowerCase()}: ${values[n.toLowerCase()] ?? ''}`).join('\n'))
  if (fault === 'signature-truncated') sig = sig.slice(0, 20)
  if (fault === 'signature-not-base64') sig = `${sig.slice(0, -2)}!!`
  const keyId = fault === 'unknown-keyid' ? '00000000-0000-4000-8000-000000000000' : fault === 'junk-keyid' ? junk : key.id
  const algorithm = fault === 'algorithm' ? junk : 'HmacSHA256'
  const nameList = fault === 'names-junk' ? junk : names.join(' ')
  let params = `keyid="${keyId}", algorithm="${algorithm}", headers="${nameList}", signature="${sig}"`
  if (fault === 'param-repeated') params = `keyid="${key.id}", ${params}`
  if (fault === 'param-unquoted') params = params.replace(/"/g, '')
  if (fault === 'junk-signature') params = junk
  let headers: Header[] = [['date', date], ...(withBody ? [['digest', digest] as Header] : []), ['v-c-merchant-id', merchant], ['signature', params]]
  const drop = /^drop-(.+)$/.exec(fault ?? '')?.[1]
  if (drop) headers = headers.filter(([n]) => n !== (drop === 'merchant' ? 'v-c-merchant-id' : drop))
  if (fault === 'junk-merchant') headers = headers.map(([n, v]) => [n, n === 'v-c-merchant-id' ? junk : v])
  if (fault === 'junk-digest') headers = headers.map(([n, v]) => [n, n === 'digest' ? junk : v])
  if (fault === 'repeat-signature') headers = [['signature', `keyid="${key.id}", algorithm="HmacSHA256", headers="host", signature="AAAA"`], ...headers]
  if (fault === 'repeat-date') headers = [...headers, ['date', new Date(now - 3_600_000).toUTCString()]]
  if (fault === 'both-schemes') headers = [...headers, ['authorization', `Bearer ${creds.tokens.testrest ?? 'x'}`]]
  return headers
}

function jwt(c: HttpCase, auth: Auth, creds: MerchantCredentials): Header[] {
  const fault = auth.mangle?.kind
  const junk = auth.mangle?.value ?? ''
  const key = creds.keys[auth.key]
  const cert = auth.scheme === 'jwt-rs256' && auth.key === 'testrest' ? creds.certificate : undefined
  const now = creds.now()
  const claims: Record<string, unknown> = {}
  const header: Record<string, unknown> = {}
  if (fault === 'expired') Object.assign(claims, { iat: Math.floor(now.getTime() / 1000) - 900, exp: Math.floor(now.getTime() / 1000) - 600 })
  if (fault === 'stale-iat') claims['iat'] = Math.floor(now.getTime() / 1000) - 600
  if (fault === 'future-iat') Object.assign(claims, { iat: Math.floor(now.getTime() / 1000) + 600, exp: Math.floor(now.getTime() / 1000) + 720 })
  if (fault === 'path-other') claims['request-resource-path'] = c.target === '/reporting/v3/reports' ? '/reporting/v3/report-subscriptions' : '/reporting/v3/reports'
  if (fault === 'method-other') claims['request-method'] = c.method === 'GET' ? 'post' : 'get'
  if (fault === 'digest-other') Object.assign(claims, { digest: sha256('other'), 'digest-algorithm': 'SHA-256' })
  if (fault === 'digest-missing') Object.assign(claims, { digest: undefined, 'digest-algorithm': undefined })
  if (fault === 'iss-other') claims['iss'] = 'othermerchant'
  if (fault === 'merchant-other') claims['v-c-merchant-id'] = 'othermerchant'
  if (fault === 'jti-fixed') claims['jti'] = 'fuzz-fixed-jti'
  if (fault === 'claim-drop') claims[junk] = undefined
  if (fault === 'claim-junk') {
    const at = junk.indexOf('=')
    claims[junk.slice(0, at)] = JSON.parse(junk.slice(at + 1)) as unknown
  }
  if (fault === 'kid-unknown') header['kid'] = '00000000-0000-4000-8000-000000000000'
  if (fault === 'kid-junk') header['kid'] = junk
  if (fault === 'alg-rs512') header['alg'] = 'RS512'
  if (fault === 'alg-none') header['alg'] = 'none'
  if (fault === 'crit') header['crit'] = ['exp']
  if (fault === 'typ-junk') header['typ'] = junk
  if (fault === 'oversized') claims['pad'] = 'p'.repeat(9_000)
  // The classic confusion: HS256 keyed with the certificate (public, PEM) under its kid, for a verifier that would
  // take whatever key the kid names as the HMAC secret.
  const confused = fault === 'alg-confusion' && creds.certificate
  const signer = confused ? { key: { id: confused.serialNumber, secret: Buffer.from(confused.certificatePem).toString('base64') } } : cert ? { cert: cert as unknown as TestCertificate } : { key }
  let token = makeJwt({ method: c.method, path: c.target, body: c.body, signer, issuer: key.org, merchantId: auth.merchant, now, claims, header })
  if (fault === 'alg-none') token = `${token.split('.').slice(0, 2).join('.')}.`
  if (fault === 'signature-flipped') token = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
  if (fault === 'token-junk') token = junk
  const headers: Header[] = [['authorization', `${fault === 'scheme-lowercase' ? 'bearer' : 'Bearer'} ${token}`]]
  if (fault === 'merchant-header-mismatch') headers.push(['v-c-merchant-id', 'testrest_two'])
  if (fault === 'with-signature-header') headers.push(['signature', `keyid="${key.id}", algorithm="HmacSHA256", headers="host", signature="AAAA"`])
  return headers
}

function bearer(auth: Auth, creds: MerchantCredentials): Header[] {
  const fault = auth.mangle?.kind
  const token = creds.tokens[auth.key] ?? creds.tokens.testrest ?? ''
  const value = fault === 'token-unknown' ? `fat_${randomBytes(32).toString('base64url')}`
    : fault === 'token-junk' ? (auth.mangle?.value ?? '')
    : fault === 'token-wrong-kind' ? (creds.wrongTokens[Number(auth.mangle?.value ?? 0) % Math.max(1, creds.wrongTokens.length)] ?? 'x')
    : token
  const scheme = fault === 'scheme-basic' ? 'Basic' : fault === 'scheme-lowercase' ? 'bearer' : 'Bearer'
  const headers: Header[] = [['authorization', fault === 'no-token' ? 'Bearer' : `${scheme} ${value}`]]
  const merchant = fault === 'merchant-other' ? 'othermerchant' : fault === 'merchant-unknown' ? 'nosuchmerchant' : auth.merchant
  if (merchant !== undefined) headers.push(['v-c-merchant-id', merchant])
  if (fault === 'two-authorizations') headers.push(['authorization', `Bearer ${value}`])
  if (fault === 'with-signature-header') headers.push(['signature', 'keyid="x", algorithm="HmacSHA256", headers="host", signature="AAAA"'])
  return headers
}
