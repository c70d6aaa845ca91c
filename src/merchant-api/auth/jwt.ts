// JWT authentication as the official SDK makes it (cybersource-rest-client 0.0.83, JWTSigToken; authenticationType
// `jwt`): `Authorization: Bearer <compact JWS>`, either RS256 under the private key of a .p12 whose certificate is
// registered here (header kid: the certificate subject's serialNumber) or HS256 under a reporting key's shared
// secret (jwtKeyType SHARED_SECRET; kid: the key id). Its claims bind the token to one request: iat and exp (2
// minutes apart), a jti, iss (the key's organization: the merchant, or the portfolio in meta-key mode),
// v-c-merchant-id (the merchant acted for), request-method, request-resource-path, request-host, and for
// POST/PUT/PATCH the body's digest with digest-algorithm. Pure functions; the gateway looks the key up, remembers
// the jti and answers. No JOSE library: node:crypto verifies both algorithms.
import { createHmac, timingSafeEqual, verify, type KeyObject } from 'node:crypto'
import { MAX_CLOCK_SKEW_MS } from './http-signature.js'

export const JWT_ALGORITHMS = ['RS256', 'HS256'] as const
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

/** Longer tokens are refused before anything is decoded (the SDK's are under 1 KiB). */
const MAX_TOKEN_LENGTH = 8192
const MAX_CLAIM_LENGTH = 256
const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
/** NumericDate bounds: a second count in this range is a real moment (1970 to 5138), never NaN or Infinity. */
const MAX_NUMERIC_DATE = 1e11

/** Why a JWT was refused: counted, never told to the caller. */
export type JwtFailure =
  | 'jwt_malformed'
  | 'jwt_algorithm'
  | 'jwt_claims'
  | 'jwt_expired'
  | 'jwt_stale'
  | 'jwt_future'
  | 'jwt_method'
  | 'jwt_path'
  | 'jwt_digest'
  | 'jwt_issuer'
  | 'jwt_replayed'
  | 'certificate_expired'

/** A bearer string is a JWT when it has three base64url parts; this server's OAuth tokens have none. */
export function looksLikeJwt(token: string): boolean {
  return COMPACT.test(token)
}

export interface ParsedJwt {
  alg: JwtAlgorithm
  kid: string
  claims: Record<string, unknown>
  /** `header.payload` as sent: what the signature covers. */
  signingInput: string
  signature: Buffer
}

export type Parsed = { ok: true; jwt: ParsedJwt } | { ok: false; reason: JwtFailure }

const jsonObject = (part: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

// No NUL: the kid is looked up, and the jti and organizations stored, in a database whose text cannot hold one
// (PostgreSQL), before or after the signature is checked; a body, query or path is refused the same way elsewhere.
const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_LENGTH && !value.includes('\u0000')

/** Decodes a compact JWS: its header (alg, kid, no critical extensions) and claims; checks nothing of the claims. */
export function parseJwt(token: string): Parsed {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT.test(token)) return { ok: false, reason: 'jwt_malformed' }
  const [head, body, signature] = token.split('.') as [string, string, string]
  const header = jsonObject(head)
  const claims = jsonObject(body)
  if (!header || !claims) return { ok: false, reason: 'jwt_malformed' }
  // RFC 7515 4.1.11: an extension this verifier does not understand must make it refuse the token.
  if ('crit' in header || (header['typ'] !== undefined && header['typ'] !== 'JWT')) return { ok: false, reason: 'jwt_malformed' }
  const alg = header['alg']
  if (typeof alg !== 'string' || !(JWT_ALGORITHMS as readonly string[]).includes(alg)) return { ok: false, reason: 'jwt_algorithm' }
  const kid = header['kid']
  if (!text(kid)) return { ok: false, reason: 'jwt_malformed' }
  return { ok: true, jwt: { alg: alg as JwtAlgorithm, kid, claims, signingInput: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') } }
}

/** The request a JWT must describe: its method and its path with query, exactly as sent. */
export interface JwtRequest {
  method: string
  url: string
}

export interface CheckedClaims {
  /** `v-c-merchant-id`: the merchant the call acts for. */
  merchantId: string
  /** `iss`: the organization of the key that signed (the merchant itself, or its portfolio in meta-key mode). */
  issuer: string
  jti: string
  /** The body's digest as the gateway checks it (`SHA-256=<base64>`), when the token carries one. */
  digest: string | undefined
  /** Until when (ms) the token could be accepted: how long its jti must be remembered. */
  rememberUntil: number
}

export type Claims = { ok: true; claims: CheckedClaims } | { ok: false; reason: JwtFailure }

const numericDate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0 && value < MAX_NUMERIC_DATE

/**
 * Everything but the signature, the key and the jti's freshness. Times: the token's own clock may be off the
 * server's by MAX_CLOCK_SKEW_MS either way, as for the HTTP Signature date: `exp` is honoured up to that much late,
 * `iat` may be that far in the future, and a token issued longer ago than that is too old whatever its `exp` (so a
 * jti is remembered at most that long).
 */
export function checkJwtClaims(claims: Record<string, unknown>, request: JwtRequest, nowMs: number): Claims {
  const fail = (reason: JwtFailure): Claims => ({ ok: false, reason })
  const { iat, exp, nbf, jti, iss } = claims
  const merchantId = claims['v-c-merchant-id']
  const method = claims['request-method']
  const path = claims['request-resource-path']
  const host = claims['request-host']
  if (!numericDate(iat) || !numericDate(exp) || exp < iat || (nbf !== undefined && !numericDate(nbf))) return fail('jwt_claims')
  // request-host: the SDK writes its configured environment's name (apitest.cybersource.com) even when pointed
  // here with intermediateHost, so, as for the signed host header, it is required but not compared.
  if (!text(jti) || !text(iss) || !text(merchantId) || !text(method) || !text(path) || !text(host)) return fail('jwt_claims')
  if (nowMs > exp * 1000 + MAX_CLOCK_SKEW_MS) return fail('jwt_expired')
  if (nowMs > iat * 1000 + MAX_CLOCK_SKEW_MS) return fail('jwt_stale')
  if (iat * 1000 > nowMs + MAX_CLOCK_SKEW_MS || (nbf !== undefined && nbf * 1000 > nowMs + MAX_CLOCK_SKEW_MS)) return fail('jwt_future')
  if (method !== request.method.toLowerCase()) return fail('jwt_method')
  if (path !== request.url) return fail('jwt_path')
  const digest = claims['digest']
  const algorithm = claims['digest-algorithm']
  if (digest !== undefined || BODY_METHODS.has(request.method.toUpperCase())) {
    if (typeof digest !== 'string' || algorithm !== 'SHA-256' || Buffer.from(digest, 'base64').length !== 32) return fail('jwt_digest')
  }
  return {
    ok: true,
    claims: {
      merchantId,
      issuer: iss,
      jti,
      digest: typeof digest === 'string' ? `SHA-256=${digest}` : undefined,
      // exp ≥ iat, so iat bounds the window; one second more for the NumericDate's rounding.
      rememberUntil: iat * 1000 + MAX_CLOCK_SKEW_MS + 1000,
    },
  }
}

/** The key a JWT is verified with: a shared secret (HS256) or a certificate's public key (RS256). */
export type JwtKey = { secret: Buffer } | { publicKey: KeyObject }

/** Verifies the signature under the key its algorithm names; HS256 compared in constant time. */
export function verifyJwtSignature(jwt: ParsedJwt, key: JwtKey): boolean {
  if (jwt.alg === 'HS256') {
    if (!('secret' in key)) return false
    const expected = createHmac('sha256', key.secret).update(jwt.signingInput, 'ascii').digest()
    return jwt.signature.length === expected.length && timingSafeEqual(expected, jwt.signature)
  }
  if (!('publicKey' in key)) return false
  try {
    return verify('sha256', Buffer.from(jwt.signingInput, 'ascii'), key.publicKey, jwt.signature)
  } catch {
    return false
  }
}
