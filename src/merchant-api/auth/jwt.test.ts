import { createHash, createHmac, generateKeyPairSync } from 'node:crypto'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { checkJwtClaims, looksLikeJwt, parseJwt, verifyJwtSignature, type ParsedJwt } from './jwt.js'

// The official SDK's own token code (HS256, jwtKeyType SHARED_SECRET), so the verifier is checked against what real
// clients make. It reads the real clock, so these tests compare with Date.now().
const require = createRequire(import.meta.url)
const sdkJwt = require('cybersource-rest-client/src/authentication/jwt/JWTSigToken.js') as { getToken(config: unknown, mle: boolean, logger: unknown): string }
const quiet = { error: () => {}, info: () => {}, warn: () => {}, debug: () => {} }
const SECRET = 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE='
const KEY_ID = '08c94330-f618-42a3-b09d-e1e43be5efda'

function sdkToken(o: { method: string; target: string; merchantId: string; body?: string; portfolioId?: string }): string {
  const config = {
    requestTarget: o.target,
    getRequestType: () => o.method,
    getRequestJsonData: () => o.body ?? '',
    getRunEnvironment: () => 'apitest.cybersource.com',
    getUseMetaKey: () => o.portfolioId !== undefined,
    getPortfolioID: () => o.portfolioId,
    getMerchantID: () => o.merchantId,
    isSharedSecretKeyType: () => true,
    getMerchantsecretKey: () => SECRET,
    getMerchantKeyID: () => KEY_ID,
  }
  return sdkJwt.getToken(config, false, quiet)
}

const parsed = (token: string): ParsedJwt => {
  const result = parseJwt(token)
  if (!result.ok) throw new Error(result.reason)
  return result.jwt
}

describe('the SDK token', () => {
  it('parses, verifies under the shared secret, and carries what the server checks', () => {
    const token = sdkToken({ method: 'PUT', target: '/reporting/v3/report-subscriptions?organizationId=testrest_two', merchantId: 'testrest_two', body: '{"a":1}', portfolioId: 'testrest_acct' })
    expect(looksLikeJwt(token)).toBe(true)
    const jwt = parsed(token)
    expect(jwt).toMatchObject({ alg: 'HS256', kid: KEY_ID })
    expect(verifyJwtSignature(jwt, { secret: Buffer.from(SECRET, 'base64') })).toBe(true)
    expect(verifyJwtSignature(jwt, { secret: Buffer.alloc(32) })).toBe(false)
    const checked = checkJwtClaims(jwt.claims, { method: 'PUT', url: '/reporting/v3/report-subscriptions?organizationId=testrest_two' }, Date.now())
    expect(checked).toEqual({
      ok: true,
      claims: {
        merchantId: 'testrest_two',
        issuer: 'testrest_acct',
        jti: jwt.claims['jti'],
        digest: `SHA-256=${createHash('sha256').update('{"a":1}').digest('base64')}`,
        rememberUntil: (jwt.claims['iat'] as number) * 1000 + 301_000,
      },
    })
    expect(jwt.claims['request-host']).toBe('apitest.cybersource.com')
  })

  it('is refused for another method or path, and outside its time', () => {
    const jwt = parsed(sdkToken({ method: 'GET', target: '/reporting/v3/report-definitions', merchantId: 'testrest' }))
    const now = Date.now()
    const check = (method: string, url: string, at = now) => checkJwtClaims(jwt.claims, { method, url }, at)
    expect(check('GET', '/reporting/v3/report-definitions').ok).toBe(true)
    expect(check('DELETE', '/reporting/v3/report-definitions')).toEqual({ ok: false, reason: 'jwt_method' })
    expect(check('GET', '/reporting/v3/report-definitions?x=1')).toEqual({ ok: false, reason: 'jwt_path' })
    // exp is iat + 2 minutes, honoured up to 5 minutes late; but a token issued over 5 minutes ago is too old anyway.
    expect(check('GET', '/reporting/v3/report-definitions', now + 5 * 60_000 - 2000).ok).toBe(true)
    expect(check('GET', '/reporting/v3/report-definitions', now + 5 * 60_000 + 2000)).toEqual({ ok: false, reason: 'jwt_stale' })
    expect(check('GET', '/reporting/v3/report-definitions', now + 7 * 60_000 + 2000)).toEqual({ ok: false, reason: 'jwt_expired' })
    // iat may be 5 minutes ahead of the server's clock.
    expect(check('GET', '/reporting/v3/report-definitions', now - 5 * 60_000 + 2000).ok).toBe(true)
    expect(check('GET', '/reporting/v3/report-definitions', now - 5 * 60_000 - 2000)).toEqual({ ok: false, reason: 'jwt_future' })
  })
})

describe('parseJwt and checkJwtClaims', () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const token = (header: unknown, claims: unknown = {}) => `${b64(header)}.${b64(claims)}.c2ln`

  it('refuses what is not a compact JWS of RS256 or HS256 with a kid', () => {
    expect(parseJwt('a.b')).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(`${token({ alg: 'HS256', kid: 'k' })}=`)).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt('x'.repeat(9000) + '.a.b')).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(token({ alg: 'none', kid: 'k' }))).toEqual({ ok: false, reason: 'jwt_algorithm' })
    expect(parseJwt(token({ alg: 'ES256', kid: 'k' }))).toEqual({ ok: false, reason: 'jwt_algorithm' })
    expect(parseJwt(token({ alg: 'HS256' }))).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(token({ alg: 'HS256', kid: 'k', crit: ['b64'] }))).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(token({ alg: 'HS256', kid: 'k', typ: 'dpop+jwt' }))).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(`${b64({ alg: 'HS256', kid: 'k' })}.${Buffer.from('[1]').toString('base64url')}.c2ln`)).toEqual({ ok: false, reason: 'jwt_malformed' })
    expect(parseJwt(token({ alg: 'RS256', kid: 'k' })).ok).toBe(true)
  })

  it('needs every claim the SDK sends, with the right types, and the digest for a body', () => {
    const now = 1_770_000_000_000
    const iat = now / 1000
    const base = { iat, exp: iat + 120, jti: 'j', iss: 'm', 'v-c-merchant-id': 'm', 'request-method': 'post', 'request-resource-path': '/p', 'request-host': 'h', digest: Buffer.alloc(32).toString('base64'), 'digest-algorithm': 'SHA-256' }
    const check = (claims: Record<string, unknown>) => checkJwtClaims(claims, { method: 'POST', url: '/p' }, now)
    expect(check(base).ok).toBe(true)
    for (const name of ['iat', 'exp', 'jti', 'iss', 'v-c-merchant-id', 'request-method', 'request-resource-path', 'request-host']) {
      expect(check({ ...base, [name]: undefined }), name).toEqual({ ok: false, reason: 'jwt_claims' })
    }
    expect(check({ ...base, iat: String(iat) })).toEqual({ ok: false, reason: 'jwt_claims' })
    expect(check({ ...base, exp: iat - 1 })).toEqual({ ok: false, reason: 'jwt_claims' })
    expect(check({ ...base, iat: Infinity })).toEqual({ ok: false, reason: 'jwt_claims' })
    expect(check({ ...base, 'v-c-merchant-id': 'm'.repeat(300) })).toEqual({ ok: false, reason: 'jwt_claims' })
    expect(check({ ...base, iat: iat - 400, exp: iat + 600 })).toEqual({ ok: false, reason: 'jwt_stale' })
    expect(check({ ...base, nbf: iat + 400 })).toEqual({ ok: false, reason: 'jwt_future' })
    expect(check({ ...base, digest: undefined })).toEqual({ ok: false, reason: 'jwt_digest' })
    expect(check({ ...base, 'digest-algorithm': 'SHA-512' })).toEqual({ ok: false, reason: 'jwt_digest' })
    expect(check({ ...base, digest: 'c2hvcnQ=' })).toEqual({ ok: false, reason: 'jwt_digest' })
  })

  it('verifies RS256 with the public key only, and never an HMAC under the wrong kind of key', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const input = `${b64({ alg: 'RS256', kid: 'k' })}.${b64({ a: 1 })}`
    const { sign } = require('node:crypto') as typeof import('node:crypto')
    const jwt = parsed(`${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`)
    expect(verifyJwtSignature(jwt, { publicKey })).toBe(true)
    expect(verifyJwtSignature(jwt, { secret: Buffer.alloc(32) })).toBe(false)
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey
    expect(verifyJwtSignature(jwt, { publicKey: other })).toBe(false)
    const hsInput = `${b64({ alg: 'HS256', kid: 'k' })}.${b64({ a: 1 })}`
    const hs = parsed(`${hsInput}.${createHmac('sha256', Buffer.alloc(32)).update(hsInput).digest('base64url')}`)
    expect(verifyJwtSignature(hs, { secret: Buffer.alloc(32) })).toBe(true)
    expect(verifyJwtSignature(hs, { publicKey })).toBe(false)
  })
})
