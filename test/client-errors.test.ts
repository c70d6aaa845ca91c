// Requests Node's HTTP parser rejects, or answers before Fastify (no Host, an unknown Expect), answer in the
// contract of the family at their path, over a raw socket against a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/harness.js'
import type { Socket } from 'node:net'
import { rawExchange, rawRequest, sleep } from './support/raw-http.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

const KEY = 'sandbox-key-finapi'
const head = (target: string, extra: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nUser-Agent: a\r\n${extra}\r\n`

/** Every malformed request, on a path of each family. */
const CASES: [string, (target: string) => string | Buffer][] = [
  ['a non-numeric Content-Length', (p) => head(p, 'Content-Length: abc\r\n')],
  ['Content-Length with Transfer-Encoding', (p) => `POST ${p} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nUser-Agent: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
  ['a bad chunk size', (p) => `POST ${p} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nUser-Agent: a\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
  ['a control byte in a header', (p) => head(p, 'X-Bad: a\u0001b\r\n')],
  ['raw non-ASCII in the URL', (p) => Buffer.concat([Buffer.from(`GET ${p}${p.includes('?') ? '&' : '?'}x=`), Buffer.from([0xc3, 0xa9]), Buffer.from(` HTTP/1.1\r\nHost: x\r\n\r\n`)])],
  ['headers over 16 KB', (p) => head(p, `X-Big: ${'a'.repeat(17_000)}\r\n`)],
  ['a URL over 16 KB', (p) => head(`${p}${p.includes('?') ? '&' : '?'}pad=${'a'.repeat(17_000)}`, '')],
]

function expectComplete(res: Awaited<ReturnType<typeof rawRequest>>) {
  expect(res.closed).toBe(true)
  expect(res.headers['connection']).toBe('close')
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body))
  expect(res.headers['x-correlationid']).toMatch(/^[0-9a-f-]{36}$/)
}

describe.each(CASES)('%s', (_name, build) => {
  it('under /v2: API-420/400 in the banking envelope', async () => {
    const res = await rawRequest(t.baseUrl, build('/v2/accounts?v=1'))
    expectComplete(res)
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json.status).toMatchObject({ code: 'API-420', message: 'Invalid Request' })
    expect(res.body).not.toContain(KEY)
  })

  it('at the token endpoint: an RFC 6749 error', async () => {
    const res = await rawRequest(t.baseUrl, build('/oauth2/v3/token'))
    expectComplete(res)
    expect(res.status).toBe(500)
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8')
    expect(res.json).toMatchObject({ error: 'invalid_request' })
  })

  it('elsewhere: a JSON error', async () => {
    const res = await rawRequest(t.baseUrl, build('/health/live'))
    expectComplete(res)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ statusCode: 400, error: 'Bad Request' })
  })
})

describe('a request cut off inside its headers (the client half-closes)', () => {
  // The request line was read, so the family is known from its path, although the request never completes.
  const cut = (target: string) => (socket: Socket) => {
    socket.write(`POST ${target} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nUser-`)
    socket.end()
  }

  it('under /v2: API-420/400 in the banking envelope', async () => {
    const res = await rawExchange(t.baseUrl, cut('/v2/auth?v=1'))
    expectComplete(res)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ status: { code: 'API-420', message: 'Invalid Request', details: [{ reason: 'the request ended inside its headers' }] } })
    expect(res.body).not.toContain(KEY)
  })

  it('under /reporting/v3: the reporting error body', async () => {
    const res = await rawExchange(t.baseUrl, cut('/reporting/v3/reports'))
    expectComplete(res)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ reason: 'the request ended inside its headers' }] })
  })

  it('at the token endpoint: an RFC 6749 error; elsewhere a JSON error', async () => {
    const token = await rawExchange(t.baseUrl, cut('/oauth2/v3/token'))
    expect(token.status).toBe(500)
    expect(token.json).toEqual({ error: 'invalid_request', error_description: 'the request ended inside its headers' })
    const other = await rawExchange(t.baseUrl, cut('/health/live'))
    expect(other.json).toEqual({ statusCode: 400, error: 'Bad Request', message: 'the request ended inside its headers' })
  })

  it('cut off inside the request line: the family of as much of the target as came; before it, the JSON error', async () => {
    const partial = await rawExchange(t.baseUrl, (socket) => void socket.end('POST /v2/au'))
    expect(partial.json.status).toMatchObject({ code: 'API-420' })
    const none = await rawExchange(t.baseUrl, (socket) => void socket.end('POS'))
    expect(none.status).toBe(400)
    expect(none.json).toMatchObject({ statusCode: 400, error: 'Bad Request' })
  })

  it('with its headers in several chunks: the family of the chunk the request began in', async () => {
    const res = await rawExchange(t.baseUrl, async (socket) => {
      socket.write(`POST /v2/auth?v=1 HTTP/1.1\r\nHost: x\r\n`)
      await sleep(50)
      socket.write(`x-svc-key: ${KEY}\r\nUser-`)
      await sleep(50)
      socket.end()
    })
    expect(res.json).toEqual({ status: { code: 'API-420', message: 'Invalid Request', details: [{ reason: 'the request ended inside its headers' }] } })
  })

  it('after a complete request on the same connection: the second one is answered in its family', async () => {
    const res = await rawExchange(t.baseUrl, async (socket) => {
      socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')
      await sleep(50)
      socket.write(`POST /v2/auth?v=1 HTTP/1.1\r\nHost: x\r\nUser-`)
      socket.end()
    })
    expect(res.text).toContain('{"status":"ok"}')
    expect(res.text).toContain('"code":"API-420"')
  })
})

describe('answered by Node before Fastify', () => {
  it('a missing Host on HTTP/1.1 answers API-420 naming Host, not an empty 400', async () => {
    const res = await rawRequest(t.baseUrl, `GET /v2/accounts?v=1 HTTP/1.1\r\nx-svc-key: ${KEY}\r\nUser-Agent: a\r\nConnection: close\r\n\r\n`)
    expect(res.status).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', details: [{ field: 'Host', reason: 'required header is missing' }] })
  })

  it('a missing Host elsewhere answers a JSON error; HTTP/1.0 needs none', async () => {
    const res = await rawRequest(t.baseUrl, `GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n`)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ statusCode: 400 })
    const old = await rawRequest(t.baseUrl, `GET /health/live HTTP/1.0\r\n\r\n`)
    expect(old.status).toBe(200)
  })

  it('an Expect other than 100-continue answers in the family, not an empty 417', async () => {
    const v2 = await rawRequest(t.baseUrl, head('/v2/accounts?v=1', 'Expect: something-else\r\n'))
    expect(v2.status).toBe(400)
    expect(v2.json.status).toMatchObject({ code: 'API-420', details: [{ field: 'Expect' }] })
    expect(v2.headers['connection']).toBe('close')
    const token = await rawRequest(t.baseUrl, `POST /oauth2/v3/token HTTP/1.1\r\nHost: x\r\nExpect: x\r\nContent-Length: 0\r\n\r\n`)
    expect(token.status).toBe(500)
    expect(token.json).toMatchObject({ error: 'invalid_request' })
  })

  it('a CONNECT request is answered in the contract, not dropped', async () => {
    const res = await rawRequest(t.baseUrl, 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n')
    expectComplete(res)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'CONNECT is not supported' })
  })

  it('a token endpoint failure the parser raised still says no-store', async () => {
    const res = await rawRequest(t.baseUrl, 'POST /oauth2/v3/token HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
    expect(res.status).toBe(500)
    expect(res.headers).toMatchObject({ 'cache-control': 'no-store', pragma: 'no-cache' })
  })

  it('an authorize-page error raised before the pages\' hook (no Host) still carries the page headers', async () => {
    const res = await rawRequest(t.baseUrl, 'GET /oauth2/v3/assets/consent.css HTTP/1.1\r\nConnection: close\r\n\r\n')
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.headers).toMatchObject({ 'x-frame-options': 'DENY', 'cache-control': 'no-store' })
    expect(res.headers['content-security-policy']).toContain("default-src 'none'")
  })

  it('Expect: 100-continue still works', async () => {
    const res = await rawRequest(t.baseUrl, `GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`)
    expect(res.text).toContain('200 OK')
  })
})

describe('unknown paths outside every family', () => {
  it('answer a JSON 404 under /oauth2/v3 and at the root, and log no URL', async () => {
    for (const path of ['/oauth2/v3/nothing?client_id=fk_hidden-1', '/nothing?token=hidden-2']) {
      const res = await t.call('GET', path)
      expect(res.status).toBe(404)
      expect(res.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'Not Found' })
    }
    const head = await t.call('HEAD', '/oauth2/v3/authorize?client_id=fk_hidden-3')
    expect(head.status).toBe(404)
    const all = JSON.stringify(t.logs)
    for (const secret of ['fk_hidden-1', 'hidden-2', 'fk_hidden-3']) expect(all).not.toContain(secret)
  })
})
