// PKCE (RFC 7636) with the S256 method only: the plain method offers no protection once the authorization request
// is seen, and RFC 9700 says to use S256.
import { createHash, timingSafeEqual } from 'node:crypto'

/** 43 to 128 unreserved characters (RFC 7636, 4.1). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/
/** BASE64URL(SHA-256(verifier)) without padding: always 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/

export function isCodeVerifier(value: string): boolean {
  return VERIFIER.test(value)
}

export function isS256Challenge(value: string): boolean {
  return CHALLENGE.test(value)
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

/** Whether the verifier hashes to the challenge; compared in constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isS256Challenge(challenge)) return false
  const actual = Buffer.from(s256Challenge(verifier))
  const expected = Buffer.from(challenge)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
