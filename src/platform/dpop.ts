// DPoP proofs (RFC 9449): a JWS the client signs per request with a key whose public half it sends in the header.
// Generic JOSE and RFC 9449 checks only, with node:crypto (ES256, and Ed25519 under either name: EdDSA or Ed25519); the
// replay memory is the platform's one memory of used credentials (replay-guard.ts, in the database, so it holds across
// processes).
import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto'
import type { Clock } from './clock.js'
import type { ReplayGuard } from './replay-guard.js'

/** Ed25519 is RFC 9864's fully specified name for what older clients call EdDSA (with an Ed25519 key): both are taken. */
export const DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519'] as const
/** A proof's iat may be this far from the server's clock, either way; its jti is remembered as long. */
export const DPOP_PROOF_WINDOW_S = 60
const MAX_PROOF_LENGTH = 4096
const MAX_JTI_LENGTH = 256

export interface DpopExpectation {
  method: string
  /** The request's URL as the client addressed it; query and fragment are ignored. */
  url: string
  /** The access token the proof must be bound to (ath), at a resource server. */
  accessToken?: string
}

export type DpopCheck = { ok: true; jkt: string; jti: string; iat: number } | { ok: false; reason: string }

export interface DpopVerifier {
  /** The proof's key thumbprint when it is valid for this request and not seen before; else the reason. */
  verify(proof: string | string[] | undefined, expected: DpopExpectation): Promise<DpopCheck>
}

const b64urlJson = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

const sha256b64url = (text: string) => createHash('sha256').update(text).digest('base64url')

/** The URL without query and fragment, with a default port dropped, for comparing htu (RFC 9449 4.3). */
export function htuOf(url: string): string | undefined {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return undefined
  }
}

/** RFC 7638 thumbprint of a public EC P-256 or OKP Ed25519 key: the required members in lexicographic order. */
export function jwkThumbprint(jwk: Record<string, unknown>): string | undefined {
  const members = jwk['kty'] === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk['kty'] === 'OKP' ? ['crv', 'kty', 'x'] : undefined
  if (!members || !members.every((m) => typeof jwk[m] === 'string')) return undefined
  return sha256b64url(JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]]))))
}

/** Everything but the replay check: signature, typ, alg, key, htm, htu, iat and (if given) ath. */
export function checkDpopProof(proof: string, expected: DpopExpectation, nowSeconds: number): DpopCheck {
  const fail = (reason: string): DpopCheck => ({ ok: false, reason })
  if (proof.length > MAX_PROOF_LENGTH) return fail('the DPoP proof is too long')
  const parts = proof.split('.')
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return fail('the DPoP proof is not a compact JWS')
  const header = b64urlJson(parts[0]!) as Record<string, unknown> | undefined
  const payload = b64urlJson(parts[1]!) as Record<string, unknown> | undefined
  if (typeof header !== 'object' || header === null || typeof payload !== 'object' || payload === null) return fail('the DPoP proof is not a JWS')
  if (header['typ'] !== 'dpop+jwt') return fail('the DPoP proof must have typ dpop+jwt')
  const alg = header['alg']
  const jwk = header['jwk'] as Record<string, unknown> | undefined
  if (typeof jwk !== 'object' || jwk === null || 'd' in jwk) return fail('the DPoP proof must carry a public jwk')
  const curve = alg === 'ES256' ? (jwk['kty'] === 'EC' && jwk['crv'] === 'P-256') : alg === 'EdDSA' || alg === 'Ed25519' ? (jwk['kty'] === 'OKP' && jwk['crv'] === 'Ed25519') : undefined
  if (curve === undefined) return fail(`the DPoP proof's alg must be one of ${DPOP_ALGORITHMS.join(', ')}`)
  if (!curve) return fail("the DPoP proof's jwk does not match its alg")
  const jkt = jwkThumbprint(jwk)
  if (!jkt) return fail("the DPoP proof's jwk is malformed")
  let valid = false
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
    const input = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii')
    const signature = Buffer.from(parts[2]!, 'base64url')
    valid = alg === 'ES256' ? verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature) : verify(null, input, key, signature)
  } catch {
    valid = false
  }
  if (!valid) return fail("the DPoP proof's signature does not verify")
  const { jti, htm, htu, iat, ath } = payload
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) return fail('the DPoP proof needs a jti')
  if (htm !== expected.method) return fail(`the DPoP proof's htm must be ${expected.method}`)
  if (typeof htu !== 'string' || htuOf(htu) === undefined || htuOf(htu) !== htuOf(expected.url)) return fail(`the DPoP proof's htu must be ${htuOf(expected.url)}`)
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(iat - nowSeconds) > DPOP_PROOF_WINDOW_S) {
    return fail(`the DPoP proof's iat must be within ${DPOP_PROOF_WINDOW_S} seconds of now`)
  }
  if (expected.accessToken !== undefined && ath !== sha256b64url(expected.accessToken)) return fail("the DPoP proof's ath does not match the access token")
  return { ok: true, jkt, jti, iat }
}

/** A verifier with replay protection: a proof's jti is accepted once per key while its iat is in the window. */
export function createDpopVerifier(deps: { clock: Clock; replay: Pick<ReplayGuard, 'spend'> }): DpopVerifier {
  return {
    async verify(proof, expected) {
      if (proof === undefined) return { ok: false, reason: 'a DPoP proof is required' }
      if (Array.isArray(proof)) return { ok: false, reason: 'send one DPoP proof' }
      const checked = checkDpopProof(proof, expected, deps.clock.now().getTime() / 1000)
      if (!checked.ok) return checked
      const rememberUntil = new Date((checked.iat + DPOP_PROOF_WINDOW_S + 1) * 1000)
      const first = await deps.replay.spend(sha256b64url(`${checked.jkt} ${checked.jti}`), rememberUntil)
      return first ? checked : { ok: false, reason: 'the DPoP proof was already used' }
    },
  }
}
