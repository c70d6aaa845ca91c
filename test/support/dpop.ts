// DPoP proofs (RFC 9449) as a client makes them, with node:crypto: an ES256 or Ed25519 key pair (alg EdDSA, or
// Ed25519 as RFC 9864 names it), and a signed
// dpop+jwt naming the method, the URL and (at a resource server) the access token.
import { createHash, generateKeyPairSync, randomUUID, sign, type JsonWebKey, type KeyObject } from 'node:crypto'
import type { TestApp } from './harness.js'

export interface DpopKey {
  alg: 'ES256' | 'EdDSA' | 'Ed25519'
  jwk: JsonWebKey
  privateKey: KeyObject
}

export function dpopKey(alg: DpopKey['alg'] = 'ES256'): DpopKey {
  const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')
  return { alg, jwk: publicKey.export({ format: 'jwk' }), privateKey }
}

export interface ProofClaims {
  htm: string
  htu: string
  /** Seconds since the epoch; the test app's clock by default. */
  iat: number
  accessToken?: string
  jti?: string
  /** Replaces members of the header (e.g. typ) for malformed proofs. */
  header?: Record<string, unknown>
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

export function dpopProof(key: DpopKey, claims: ProofClaims): string {
  const header = { typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...claims.header }
  const payload = {
    jti: claims.jti ?? randomUUID(),
    htm: claims.htm,
    htu: claims.htu,
    iat: claims.iat,
    ...(claims.accessToken === undefined ? {} : { ath: createHash('sha256').update(claims.accessToken).digest('base64url') }),
  }
  const input = `${b64(header)}.${b64(payload)}`
  const signature = key.alg === 'ES256' ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }) : sign(null, Buffer.from(input), key.privateKey)
  return `${input}.${signature.toString('base64url')}`
}

/** A proof for a call to the test app now, by its fake clock. */
export function proofFor(t: TestApp, key: DpopKey, method: string, path: string, accessToken?: string, extra: Partial<ProofClaims> = {}): string {
  return dpopProof(key, { htm: method, htu: t.baseUrl + path, iat: Math.floor(t.clock.now().getTime() / 1000), accessToken, ...extra })
}

/** RFC 7638 thumbprint of an EC or OKP public key, as the server computes it. */
export function thumbprint(jwk: JsonWebKey): string {
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url')
}
