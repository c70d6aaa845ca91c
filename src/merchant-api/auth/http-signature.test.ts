import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { checkDate, checkRequest, digestMatches, digestOf, parseSignatureHeader, sign, signingString, verifySignature, type SignedRequest } from './http-signature.js'

// The official SDK's own signing code, so the verifier is checked against what real clients compute.
const require = createRequire(import.meta.url)
const sdkSigner = require('cybersource-rest-client/src/authentication/http/SignatureParameterGenerator.js') as {
  getSignatureParameter(config: unknown, logger: unknown, date: string): string
}

const SECRET = 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE='
const NOW = new Date('2026-01-15T10:00:00Z')
const DATE = NOW.toUTCString()
const quiet = { error: () => {}, info: () => {}, warn: () => {}, debug: () => {} }

/** What the SDK signs, from the values its MerchantConfig holds. */
function sdkSignature(o: { method: string; target: string; merchantId: string; body?: string; portfolioId?: string; secret?: string }): string {
  const config = {
    getRequestHost: () => 'apitest.cybersource.com',
    getRequestType: () => o.method,
    getRequestTarget: () => o.target,
    getRequestJsonData: () => o.body ?? '',
    getUseMetaKey: () => o.portfolioId !== undefined,
    getPortfolioID: () => o.portfolioId,
    getMerchantID: () => o.merchantId,
    getMerchantsecretKey: () => o.secret ?? SECRET,
  }
  return sdkSigner.getSignatureParameter(config, quiet, DATE)
}

function request(method: string, url: string, headers: Record<string, string>): SignedRequest {
  return { method, url, header: (name) => headers[name] }
}

const getHeaders = 'host date request-target v-c-merchant-id'
const signatureHeader = (signature: string, headers = getHeaders, keyId = 'k1') => `keyid="${keyId}", algorithm="HmacSHA256", headers="${headers}", signature="${signature}"`

describe('parseSignatureHeader', () => {
  it('reads the four parameters the SDK writes', () => {
    expect(parseSignatureHeader(signatureHeader('abc='))).toEqual({ keyId: 'k1', algorithm: 'HmacSHA256', headers: ['host', 'date', 'request-target', 'v-c-merchant-id'], signature: 'abc=' })
  })

  it('refuses a missing, repeated or garbled parameter', () => {
    expect(parseSignatureHeader('keyid="k1", algorithm="HmacSHA256", headers="host"')).toBeUndefined()
    expect(parseSignatureHeader(signatureHeader('abc=') + ', keyid="k2"')).toBeUndefined()
    expect(parseSignatureHeader('junk ' + signatureHeader('abc='))).toBeUndefined()
    expect(parseSignatureHeader('')).toBeUndefined()
  })
})

describe('signingString', () => {
  it('is one name: value line per listed header, joined by \\n, without a trailing newline', () => {
    const values: Record<string, string> = { host: 'h', date: 'd', 'request-target': 'get /x?a=1', 'v-c-merchant-id': 'm' }
    expect(signingString(['host', 'date', 'request-target', 'v-c-merchant-id'], (name) => values[name])).toBe(
      'host: h\ndate: d\nrequest-target: get /x?a=1\nv-c-merchant-id: m',
    )
  })
})

describe('verifySignature against the official SDK', () => {
  const target = '/reporting/v3/report-definitions?subscriptionType=CUSTOM&organizationId=testrest'
  const headers = (signature: string, extra: Record<string, string> = {}) => ({ host: 'apitest.cybersource.com', date: DATE, 'v-c-merchant-id': 'testrest', signature: signatureHeader(signature), ...extra })

  it('accepts a GET the SDK signed, with the query as sent', () => {
    const req = request('GET', target, headers(sdkSignature({ method: 'GET', target, merchantId: 'testrest' })))
    const checked = checkRequest(req, NOW)
    expect(checked.ok).toBe(true)
    if (!checked.ok) return
    expect(verifySignature(req, checked.params, { organizationId: 'testrest', secret: Buffer.from(SECRET, 'base64') })).toBe(true)
  })

  it('refuses another secret, another path, another query and another host', () => {
    const signature = sdkSignature({ method: 'GET', target, merchantId: 'testrest' })
    const key = { organizationId: 'testrest', secret: Buffer.from(SECRET, 'base64') }
    const params = parseSignatureHeader(signatureHeader(signature))!
    expect(verifySignature(request('GET', target, headers(signature)), params, { ...key, secret: Buffer.alloc(32, 1) })).toBe(false)
    expect(verifySignature(request('GET', target.replace('definitions', 'subscriptions'), headers(signature)), params, key)).toBe(false)
    expect(verifySignature(request('GET', target.replace('CUSTOM', 'CLASSIC'), headers(signature)), params, key)).toBe(false)
    expect(verifySignature(request('GET', target, headers(signature, { host: 'evil.example' })), params, key)).toBe(false)
    expect(verifySignature(request('DELETE', target, headers(signature)), params, key)).toBe(false)
  })

  it('meta-key mode: the SDK signs the portfolio id, sends the merchant it acts for, and verifies under the portfolio key', () => {
    const signature = sdkSignature({ method: 'GET', target, merchantId: 'testrest_two', portfolioId: 'testrest_acct' })
    const req = request('GET', target, headers(signature, { 'v-c-merchant-id': 'testrest_two' }))
    const params = parseSignatureHeader(signatureHeader(signature))!
    expect(verifySignature(req, params, { organizationId: 'testrest_acct', secret: Buffer.from(SECRET, 'base64') })).toBe(true)
    // A key of the merchant itself does not verify what was signed for its portfolio.
    expect(verifySignature(req, params, { organizationId: 'testrest_two', secret: Buffer.from(SECRET, 'base64') })).toBe(false)
  })

  it('accepts a POST whose digest covers the raw body, and the digest is what the SDK sends', () => {
    const body = '{"reportName":"r1"}'
    const post = '/reporting/v3/reports'
    const signature = sdkSignature({ method: 'POST', target: post, merchantId: 'testrest', body })
    const h = headers(signature, { digest: digestOf(Buffer.from(body)), signature: signatureHeader(signature, 'host date request-target digest v-c-merchant-id') })
    const req = request('POST', post, h)
    const checked = checkRequest(req, NOW)
    expect(checked.ok).toBe(true)
    if (!checked.ok) return
    expect(verifySignature(req, checked.params, { organizationId: 'testrest', secret: Buffer.from(SECRET, 'base64') })).toBe(true)
    expect(digestMatches(checked.digest!, Buffer.from(body))).toBe(true)
    expect(digestMatches(checked.digest!, Buffer.from(body + ' '))).toBe(false)
  })
})

describe('checkRequest', () => {
  const ok = { host: 'h', date: DATE, 'v-c-merchant-id': 'testrest', signature: signatureHeader('c2ln') }
  const reason = (method: string, headers: Record<string, string>) => {
    const checked = checkRequest(request(method, '/x', headers), NOW)
    return checked.ok ? 'ok' : checked.reason
  }

  it('names the first thing wrong, for the log', () => {
    expect(reason('GET', ok)).toBe('ok')
    for (const name of ['host', 'date', 'v-c-merchant-id', 'signature']) expect(reason('GET', { ...ok, [name]: '' }), name).toBe('missing_headers')
    expect(reason('GET', { ...ok, signature: 'Bearer x' })).toBe('malformed_signature')
    expect(reason('GET', { ...ok, signature: ok.signature.replace('HmacSHA256', 'HmacSHA1') })).toBe('unsupported_algorithm')
    expect(reason('GET', { ...ok, signature: signatureHeader('c2ln', 'host date request-target') })).toBe('unsigned_headers')
    expect(reason('GET', { ...ok, signature: signatureHeader('c2ln', getHeaders + ' x-other') })).toBe('unsigned_headers')
    // A body needs its digest signed, and sent.
    expect(reason('POST', ok)).toBe('unsigned_headers')
    expect(reason('PUT', { ...ok, signature: signatureHeader('c2ln', 'host date request-target digest v-c-merchant-id') })).toBe('missing_headers')
  })
})

describe('v-c-date, for a client that may not set Date (a browser)', () => {
  const key = { organizationId: 'testrest', secret: Buffer.from(SECRET, 'base64') }
  const names = 'host v-c-date request-target v-c-merchant-id'
  const signed = (date: string, path = '/x') => {
    const values: Record<string, string> = { host: 'h', 'v-c-date': date, 'request-target': `get ${path}`, 'v-c-merchant-id': 'testrest' }
    const text = signingString(names.split(' '), (name) => values[name])
    return signatureHeader(sign(key.secret, text), names)
  }
  const check = (headers: Record<string, string>) => {
    const req = request('GET', '/x', headers)
    const checked = checkRequest(req, NOW)
    return checked.ok ? (verifySignature(req, checked.params, key) ? 'ok' : 'bad_signature') : checked.reason
  }

  it('is signed in place of date, and is the date checked', () => {
    expect(check({ host: 'h', 'v-c-date': DATE, 'v-c-merchant-id': 'testrest', signature: signed(DATE) })).toBe('ok')
    const stale = new Date(NOW.getTime() - 6 * 60_000).toUTCString()
    // A fresh unsigned date beside it does not rescue a stale signed v-c-date.
    expect(check({ host: 'h', date: DATE, 'v-c-date': stale, 'v-c-merchant-id': 'testrest', signature: signed(stale) })).toBe('stale_date')
    expect(check({ host: 'h', 'v-c-date': NOW.toISOString(), 'v-c-merchant-id': 'testrest', signature: signed(NOW.toISOString()) })).toBe('bad_date')
    // Signed but not sent; sent but another value than signed.
    expect(check({ host: 'h', date: DATE, 'v-c-merchant-id': 'testrest', signature: signed(DATE) })).toBe('missing_headers')
    const later = new Date(NOW.getTime() + 1000).toUTCString()
    expect(check({ host: 'h', 'v-c-date': later, 'v-c-merchant-id': 'testrest', signature: signed(DATE) })).toBe('bad_signature')
  })

  it('a signature covers exactly one date header', () => {
    const ok = { host: 'h', date: DATE, 'v-c-date': DATE, 'v-c-merchant-id': 'testrest' }
    expect(check({ ...ok, signature: signatureHeader('c2ln', 'host date v-c-date request-target v-c-merchant-id') })).toBe('unsigned_headers')
    expect(check({ ...ok, signature: signatureHeader('c2ln', 'host request-target v-c-merchant-id') })).toBe('unsigned_headers')
  })
})

describe('checkDate', () => {
  it('accepts an RFC 7231 date within five minutes either way, and nothing else', () => {
    expect(checkDate(DATE, NOW)).toBeUndefined()
    expect(checkDate(new Date(NOW.getTime() - 5 * 60_000).toUTCString(), NOW)).toBeUndefined()
    expect(checkDate(new Date(NOW.getTime() + 5 * 60_000).toUTCString(), NOW)).toBeUndefined()
    expect(checkDate(new Date(NOW.getTime() - 5 * 60_000 - 1000).toUTCString(), NOW)).toBe('stale_date')
    expect(checkDate(new Date(NOW.getTime() + 5 * 60_000 + 1000).toUTCString(), NOW)).toBe('stale_date')
    expect(checkDate(NOW.toISOString(), NOW)).toBe('bad_date')
    expect(checkDate('Thu, 15 Jan 2026 10:00:00 +0000', NOW)).toBe('bad_date')
  })
})
