// The DPoP proof checks (RFC 9449) on their own: what a proof must name, and what makes one fail.
import { describe, expect, it } from 'vitest'
import { dpopKey, dpopProof, thumbprint } from './support/dpop.js'
import { checkDpopProof, htuOf } from '../src/platform/dpop.js'

const NOW = 1_767_225_600
const URL_ = 'https://bank.example/v2/accounts'

describe('checkDpopProof', () => {
  it.each(['ES256', 'EdDSA', 'Ed25519'] as const)('accepts a %s proof and answers its key thumbprint', (alg) => {
    const key = dpopKey(alg)
    const result = checkDpopProof(dpopProof(key, { htm: 'GET', htu: `${URL_}?v=1#x`, iat: NOW, accessToken: 'tok' }), { method: 'GET', url: URL_, accessToken: 'tok' }, NOW)
    expect(result).toMatchObject({ ok: true, jkt: thumbprint(key.jwk), iat: NOW })
  })

  it.each([
    ['another method', { htm: 'POST' }, /htm/],
    ['another URL', { htu: 'https://bank.example/v2/other' }, /htu/],
    ['an iat too old', { iat: NOW - 61 }, /iat/],
    ['an iat too far ahead', { iat: NOW + 61 }, /iat/],
    ['another token', { accessToken: 'other' }, /ath/],
    ['typ JWT', { header: { typ: 'JWT' } }, /typ/],
    ['alg RS256', { header: { alg: 'RS256' } }, /alg/],
    ['alg Ed448', { header: { alg: 'Ed448' } }, /alg/],
    ['alg Ed25519 with a P-256 key', { header: { alg: 'Ed25519' } }, /does not match its alg/],
    ['a private key in the header', { header: { jwk: { ...dpopKey().jwk, d: 'x' } } }, /public jwk/],
  ])('refuses %s', (_name, change, reason) => {
    const key = dpopKey()
    const proof = dpopProof(key, { htm: 'GET', htu: URL_, iat: NOW, accessToken: 'tok', ...change })
    const result = checkDpopProof(proof, { method: 'GET', url: URL_, accessToken: 'tok' }, NOW)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).toMatch(reason)
  })

  it('refuses a proof whose header key is not the signer', () => {
    const proof = dpopProof(dpopKey(), { htm: 'GET', htu: URL_, iat: NOW, header: { jwk: dpopKey().jwk } })
    expect(checkDpopProof(proof, { method: 'GET', url: URL_ }, NOW)).toEqual({ ok: false, reason: "the DPoP proof's signature does not verify" })
  })

  it('htu ignores query and fragment and a default port', () => {
    expect(htuOf('https://bank.example:443/a?b=1#c')).toBe('https://bank.example/a')
    expect(htuOf('not a url')).toBeUndefined()
  })
})
