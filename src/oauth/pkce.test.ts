import { describe, expect, it } from 'vitest'
import { isCodeVerifier, isS256Challenge, s256Challenge, verifyPkce } from './pkce.js'

// RFC 7636, Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

describe('PKCE S256', () => {
  it('computes the RFC 7636 example challenge', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE)
  })

  it('verifies a matching pair and refuses anything else', () => {
    expect(verifyPkce(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true)
    expect(verifyPkce(RFC_VERIFIER.replace('d', 'e'), RFC_CHALLENGE)).toBe(false)
    expect(verifyPkce(RFC_VERIFIER, RFC_CHALLENGE.replace('E', 'F'))).toBe(false)
    // The plain method: the challenge equal to the verifier is never accepted.
    expect(verifyPkce(RFC_VERIFIER, RFC_VERIFIER)).toBe(false)
  })

  it('checks the verifier syntax: 43 to 128 unreserved characters', () => {
    expect(isCodeVerifier('a'.repeat(43))).toBe(true)
    expect(isCodeVerifier('a'.repeat(128))).toBe(true)
    expect(isCodeVerifier('a'.repeat(42))).toBe(false)
    expect(isCodeVerifier('a'.repeat(129))).toBe(false)
    expect(isCodeVerifier(`${'a'.repeat(42)}+`)).toBe(false)
    expect(isCodeVerifier(`${'a'.repeat(40)}-._~`)).toBe(true)
    expect(verifyPkce('short', s256Challenge('short'))).toBe(false)
  })

  it('checks the challenge syntax: 43 base64url characters', () => {
    expect(isS256Challenge(RFC_CHALLENGE)).toBe(true)
    expect(isS256Challenge(`${RFC_CHALLENGE}=`)).toBe(false)
    expect(isS256Challenge(RFC_CHALLENGE.slice(1))).toBe(false)
    expect(isS256Challenge(RFC_CHALLENGE.replace('-', '+'))).toBe(false)
  })
})
