import { describe, expect, it } from 'vitest'
import { MAX_PENDING_REQUEST_LENGTH, openPendingRequest, pendingRequestKey, sealPendingRequest, type PendingRequest } from './pending-request.js'

const key = pendingRequestKey('pending-request-test-secrets-key-0123456789')
const request: PendingRequest = {
  clientId: 'sandbox',
  redirectUri: 'http://127.0.0.1:8123/callback',
  scope: 'accounts',
  state: 'a b&c',
  codeChallenge: 'x'.repeat(43),
  brand: 'nab',
  lob: 'nab',
  dpopJkt: 'j'.repeat(43),
  browserHash: 'ab'.repeat(32),
  expiresAt: 1_000_000,
}

describe('pending authorization requests', () => {
  it('open what was sealed, until it expires', () => {
    const sealed = sealPendingRequest(key, request)
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(openPendingRequest(key, sealed, 999_999)).toEqual(request)
    expect(openPendingRequest(key, sealed, 1_000_000)).toBeUndefined()
  })

  it('refuse a changed payload, a changed or truncated tag, another key, and malformed values', () => {
    const sealed = sealPendingRequest(key, request)
    const [payload, tag] = sealed.split('.') as [string, string]
    const forged = Buffer.from(JSON.stringify({ ...request, redirectUri: 'https://evil.example/' })).toString('base64url')
    for (const value of [
      `${forged}.${tag}`,
      `${payload}.${tag.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `${payload}.${tag.slice(0, 20)}`,
      `${payload}.${tag}.x`,
      payload,
      `.${tag}`,
      `${payload}!.${tag}`,
      '',
    ]) {
      expect(openPendingRequest(key, value, 0), value).toBeUndefined()
    }
    expect(openPendingRequest(pendingRequestKey('another-secrets-key-0123456789abcdefgh'), sealed, 0)).toBeUndefined()
  })

  it('refuse an authenticated value of the wrong shape, and anything over the size bound before parsing it', () => {
    const odd = sealPendingRequest(key, { ...request, expiresAt: 'never' } as unknown as PendingRequest)
    expect(openPendingRequest(key, odd, 0)).toBeUndefined()
    expect(openPendingRequest(key, sealPendingRequest(key, { ...request, dpopJkt: 42 } as unknown as PendingRequest), 0)).toBeUndefined()
    const long = sealPendingRequest(key, { ...request, state: 's'.repeat(MAX_PENDING_REQUEST_LENGTH) })
    expect(openPendingRequest(key, long, 0)).toBeUndefined()
  })

  it('open one sealed before codes were bound to DPoP keys (no dpopJkt) as bound to none', () => {
    const { dpopJkt: _, ...older } = request
    expect(openPendingRequest(key, sealPendingRequest(key, older as PendingRequest), 0)).toEqual({ ...request, dpopJkt: null })
  })
})
