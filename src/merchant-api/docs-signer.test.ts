// The docs page's signer, run as the browser runs it (its text, in a VM context with WebCrypto) and checked by the
// server's own verifier: what it signs is what the gateway admits.
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { checkRequest, digestMatches, verifySignature } from './auth/http-signature.js'
import { docsSignerScript } from './docs-signer.js'

const KEY = { id: '08c94330-f618-42a3-b09d-e1e43be5efda', organizationId: 'testrest', secret: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=' }
const OTHER = { id: '41bd796c-eed9-465a-96e9-daaa9401663e', organizationId: 'othermerchant', secret: 'CwT7n9G317fficZNrnG752w9f/CmQsJq6Maghb3YIFs=' }
const signed = [{ httpSignature: [] }, { oauth2: ['reporting'] }]
const SPEC = {
  paths: {
    '/reporting/v3/report-definitions/{reportDefinitionName}': { get: { security: signed } },
    '/kms/egress/v2/keys-sym': { post: { security: signed } },
    '/v2/accounts': { get: { security: [{ svcKey: [], authorization: [] }] } },
  },
}

interface Request {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: unknown
  loadSpec?: boolean
}

/** Loads the script into a fresh context (no document: the page's chooser is not made) and returns its interceptor. */
function load(now: () => number) {
  const specRequests: string[] = []
  const context: Record<string, unknown> = {
    crypto: globalThis.crypto,
    TextEncoder,
    URL,
    btoa,
    atob,
    console,
    location: { href: 'http://127.0.0.1:3000/docs' },
    Date: class extends Date {
      static override now = now
    },
    fetch: async (url: string) => {
      specRequests.push(url)
      return { json: async () => SPEC }
    },
  }
  context['globalThis'] = context
  runInNewContext(docsSignerScript([KEY, OTHER]).content, context)
  const docs = context['finapiDocs'] as { requestInterceptors: ((r: Request) => Promise<Request>)[]; signer: { select(id: string): void } }
  expect(docs.requestInterceptors).toHaveLength(1)
  return { intercept: docs.requestInterceptors[0]!, select: docs.signer.select, specRequests }
}

/** The server's checks, on the headers the script set, as the browser sends them (Host from the URL). */
function verify(request: Request, at: Date, key = KEY) {
  const url = new URL(request.url)
  const headers: Record<string, string> = { host: url.host }
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value
  const signedRequest = { method: request.method ?? 'GET', url: url.pathname + url.search, header: (name: string) => headers[name] }
  const checked = checkRequest(signedRequest, at)
  if (!checked.ok) return checked.reason
  if (!verifySignature(signedRequest, checked.params, { organizationId: key.organizationId, secret: Buffer.from(key.secret, 'base64') })) return 'bad_signature'
  if (checked.digest !== undefined && !digestMatches(checked.digest, Buffer.from(String(request.body ?? '')))) return 'bad_digest'
  return 'ok'
}

const NOW = Date.parse('2026-01-15T10:00:00.400Z')

describe('the docs page signer', () => {
  it('signs a read (query as sent) and a write (its digest) as the gateway verifies them, with v-c-date', async () => {
    const { intercept, specRequests } = load(() => NOW)
    const read = await intercept({ url: 'http://127.0.0.1:3000/reporting/v3/report-definitions/TransactionRequestClass?subscriptionType=CUSTOM&organizationId=testrest', method: 'GET', headers: { Accept: 'application/json' } })
    expect(read.headers).toMatchObject({ 'v-c-merchant-id': 'testrest', 'v-c-date': 'Thu, 15 Jan 2026 10:00:00 GMT', Accept: 'application/json' })
    expect(read.headers!['signature']).toMatch(/^keyid="08c94330-[^"]+", algorithm="HmacSHA256", headers="host v-c-date request-target v-c-merchant-id", signature="[A-Za-z0-9+/]{43}="$/)
    expect(verify(read, new Date(NOW))).toBe('ok')

    const body = JSON.stringify({ clientReferenceInformation: { code: 'café' } })
    const write = await intercept({ url: 'http://127.0.0.1:3000/kms/egress/v2/keys-sym', method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
    expect(write.headers!['signature']).toContain('headers="host v-c-date request-target digest v-c-merchant-id"')
    expect(verify(write, new Date(NOW))).toBe('ok')
    expect(verify({ ...write, body: body + ' ' }, new Date(NOW))).toBe('bad_digest')
    // The document is read once, from the page's own copy.
    expect(specRequests).toEqual(['http://127.0.0.1:3000/docs/json'])
  })

  it('signs each write anew, at least a second after the one before (a signed write is single-use)', async () => {
    const { intercept } = load(() => NOW)
    const write = () => intercept({ url: 'http://127.0.0.1:3000/kms/egress/v2/keys-sym', method: 'POST', headers: {}, body: '{}' })
    const [first, second] = [await write(), await write()]
    expect(first.headers!['v-c-date']).toBe('Thu, 15 Jan 2026 10:00:00 GMT')
    expect(second.headers!['v-c-date']).toBe('Thu, 15 Jan 2026 10:00:01 GMT')
    expect(second.headers!['signature']).not.toBe(first.headers!['signature'])
    expect(verify(second, new Date(NOW))).toBe('ok')
  })

  it('signs with the key chosen on the page, and not at all when none is', async () => {
    const { intercept, select } = load(() => NOW)
    const url = 'http://127.0.0.1:3000/reporting/v3/report-definitions/x'
    select(OTHER.id)
    const other = await intercept({ url, headers: {} })
    expect(other.headers!['v-c-merchant-id']).toBe('othermerchant')
    expect(verify(other, new Date(NOW), OTHER)).toBe('ok')
    select('')
    expect((await intercept({ url, headers: {} })).headers).toEqual({})
  })

  it('leaves alone a call with a token from Authorize, another family\'s call, an undocumented path and the document itself', async () => {
    const { intercept } = load(() => NOW)
    const untouched: Request[] = [
      { url: 'http://127.0.0.1:3000/reporting/v3/report-definitions/x', headers: { Authorization: 'Bearer fat_x' } },
      { url: 'http://127.0.0.1:3000/v2/accounts?v=1', headers: { 'x-svc-key': 'k' } },
      { url: 'http://127.0.0.1:3000/reporting/v3/report-definitions/x/y', headers: {} },
      { url: 'http://127.0.0.1:3000/kms/egress/v2/keys-sym', method: 'DELETE', headers: {} },
      { url: 'http://127.0.0.1:3000/docs/json', headers: {}, loadSpec: true },
    ]
    for (const request of untouched) expect(await intercept(structuredClone(request))).toEqual(request)
  })
})
