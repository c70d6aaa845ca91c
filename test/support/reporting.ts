// Signing reporting calls as real clients do, for tests: the HTTP Signature headers of a request (written from the
// reference, independently of the server's verifier), the sandbox keys, and the official SDK pointed at a test server.
import { createHash, createHmac } from 'node:crypto'
import { createRequire } from 'node:module'
import { call, type TestApp } from './harness.js'

export const TESTREST_KEY = { id: '08c94330-f618-42a3-b09d-e1e43be5efda', secret: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=', org: 'testrest' }
export const ACCT_KEY = { id: '8f4572ed-8673-4277-8e6d-59dbf3a7c03a', secret: 'zFIcTvT1qSaLNQfyFqfHwHuc8ZwV123cMYfiaSjFP9U=', org: 'testrest_acct' }
export const OTHER_KEY = { id: '41bd796c-eed9-465a-96e9-daaa9401663e', secret: 'CwT7n9G317fficZNrnG752w9f/CmQsJq6Maghb3YIFs=', org: 'othermerchant' }

export interface SignOptions {
  method: string
  /** Path with query, as sent. */
  path: string
  body?: string
  key: { id: string; secret: string; org: string }
  /** The merchant sent in v-c-merchant-id; the key's organization when not given. */
  merchantId?: string
  date?: Date
  host?: string
  /** A digest to send instead of the body's. */
  digest?: string
  /** The header the date goes in and is signed as: `date` (the SDKs') or `v-c-date` (a browser's, which may not set Date). */
  dateHeader?: 'date' | 'v-c-date'
}

/** The headers a client sends; in meta-key mode (merchantId ≠ the key's org) the key's org is signed, as the SDK does. */
export function signedHeaders(o: SignOptions): Record<string, string> {
  const host = o.host ?? 'apitest.cybersource.com'
  const date = (o.date ?? new Date()).toUTCString()
  const dateHeader = o.dateHeader ?? 'date'
  const withBody = ['POST', 'PUT', 'PATCH'].includes(o.method)
  const digest = o.digest ?? `SHA-256=${createHash('sha256').update(o.body ?? '').digest('base64')}`
  const lines = [`host: ${host}`, `${dateHeader}: ${date}`, `request-target: ${o.method.toLowerCase()} ${o.path}`, ...(withBody ? [`digest: ${digest}`] : []), `v-c-merchant-id: ${o.key.org}`]
  const signature = createHmac('sha256', Buffer.from(o.key.secret, 'base64')).update(lines.join('\n')).digest('base64')
  const names = `host ${dateHeader} request-target ${withBody ? 'digest ' : ''}v-c-merchant-id`
  return {
    host,
    [dateHeader]: date,
    'v-c-merchant-id': o.merchantId ?? o.key.org,
    signature: `keyid="${o.key.id}", algorithm="HmacSHA256", headers="${names}", signature="${signature}"`,
    ...(withBody ? { digest, 'content-type': 'application/json' } : {}),
    // The harness's default banking headers, which reporting ignores.
    'x-svc-key': undefined as unknown as string,
  }
}

/** A signed call through the harness (the date read from the app's clock). */
export function signedCall(t: TestApp, o: Omit<SignOptions, 'date'> & { date?: Date }) {
  return t.call(o.method, o.path, { headers: signedHeaders({ date: t.clock.now(), ...o }), body: o.body })
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK is untyped JavaScript
type Sdk = any
const require = createRequire(import.meta.url)
export const cybersource: Sdk = require('cybersource-rest-client')

/**
 * The SDK dates each HTTP Signature with Date.now() to the second, and a signed write is single-use: the same write
 * sent twice within one second is one signature, and the second is refused as a replay (401; see
 * security-replay.test.ts). Tests send the same write again within a second all the time (a 304, a second DELETE,
 * the same key made in two tests); a real client a second apart signs it anew. So here each SDK write (any method but
 * GET) is dated at least a second after the one before, by moving Date.now while the SDK makes its headers.
 */
let lastWriteSecond = 0
const makeHeaders = cybersource.ApiClient.prototype.callAuthenticationHeader as (this: unknown, method: string, ...rest: unknown[]) => unknown
cybersource.ApiClient.prototype.callAuthenticationHeader = function (this: unknown, method: string, ...rest: unknown[]) {
  if (method.toUpperCase() === 'GET') return makeHeaders.call(this, method, ...rest)
  const realNow = Date.now
  const second = Math.max(Math.floor(realNow() / 1000), lastWriteSecond + 1)
  lastWriteSecond = second
  Date.now = () => second * 1000
  try {
    return makeHeaders.call(this, method, ...rest)
  } finally {
    Date.now = realNow
  }
}

export interface SdkResult {
  error: { status?: number; response?: { text?: string } } | null
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SDK models
  data: any
  status: number | undefined
}

/** The official SDK's merchant configuration for a test server: HTTP Signature, optionally in meta-key mode. */
export function sdkConfig(baseUrl: string, merchantId: string, key: { id: string; secret: string; org: string }) {
  const meta = key.org !== merchantId
  return {
    authenticationType: 'http_signature',
    runEnvironment: 'apitest.cybersource.com',
    intermediateHost: baseUrl,
    merchantID: merchantId,
    merchantKeyId: key.id,
    merchantsecretKey: key.secret,
    ...(meta ? { useMetaKey: true, portfolioID: key.org } : {}),
    logConfiguration: { enableLog: false },
  }
}

/** Calls an SDK method that takes a callback, as a promise. */
export function sdkCall(fn: (callback: (error: SdkResult['error'], data: unknown, response?: { status: number }) => void) => void): Promise<SdkResult> {
  return new Promise((resolve) => fn((error, data, response) => resolve({ error, data, status: response?.status ?? error?.status })))
}


/** A call to a running `finapi serve` (test/support/cli.ts), signed with testrest's sandbox key. */
export function signedOn(server: { baseUrl: string }, method: string, path: string, body?: object) {
  const text = body === undefined ? undefined : JSON.stringify(body)
  return call(server.baseUrl, '', method, path, { headers: signedHeaders({ method, path, body: text, key: TESTREST_KEY }), body: text })
}
