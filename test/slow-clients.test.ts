// Slow clients are cut off on time and answered in the contract where a request was read: a real server with
// short limits (headers 1 s, whole request 3 s, keep-alive 1 s, bodies at least 20 bytes a second over 1 s),
// slow clients over raw sockets. Real time, so few cases, each a few seconds at most.
import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/harness.js'
import { rawExchange, rawRequest, sleep, trickle } from './support/raw-http.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({
    env: {
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '3000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      BODY_MIN_BYTES_PER_SECOND: '20',
      BODY_RATE_WINDOW_MS: '1000',
      MAX_CONNECTIONS: '3',
    },
  })
})
afterAll(() => t.close())

const KEY = 'sandbox-key-finapi'
const login = JSON.stringify({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } })
const loginHead = `POST /v2/auth?v=1 HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nUser-Agent: slow/1.0\r\nContent-Type: application/json\r\nContent-Length: ${login.length}\r\n\r\n`

describe('slow clients', () => {
  it('headers at one byte every 100 ms are cut off at the header timeout', async () => {
    const res = await rawExchange(t.baseUrl, (s) => trickle(s, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(100)}\r\n\r\n`, 100))
    expect(res.closed).toBe(true)
    expect(res.elapsedMs).toBeGreaterThanOrEqual(900)
    expect(res.elapsedMs).toBeLessThan(1_600)
    // No request line was read whole: a plain JSON error.
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ statusCode: 400, message: 'the request did not arrive in time' })
  })

  it('an idle keep-alive connection is closed after the keep-alive timeout (and Node\'s one-second margin)', async () => {
    let answeredAt = 0
    const res = await rawExchange(t.baseUrl, (s) => {
      s.on('data', () => (answeredAt ||= Date.now()))
      s.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')
    })
    const closedAt = Date.now()
    expect(res.status).toBe(200)
    expect(res.headers['keep-alive']).toBe('timeout=1')
    expect(res.closed).toBe(true)
    // Node 20 holds the socket one second past the advertised timeout, so a client never reuses one it is closing.
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(800)
    expect(closedAt - answeredAt).toBeLessThan(2_700)
  })

  it('a body at 5 bytes a second is refused within the rate window, in the banking envelope', async () => {
    const res = await rawExchange(t.baseUrl, async (s) => {
      s.write(loginHead)
      await trickle(s, login, 200)
    })
    expect(res.closed).toBe(true)
    expect(res.elapsedMs).toBeLessThan(2_500)
    expect(res.status).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', details: [{ reason: 'the body arrived more slowly than 20 bytes a second' }] })
    expect(res.headers['connection']).toBe('close')
  })

  it('a body faster than the minimum but slower than the request timeout is cut off at it, in the banking envelope', async () => {
    // 40 bytes a second: above the minimum rate, but the login body would take about five seconds.
    const res = await rawExchange(t.baseUrl, async (s) => {
      s.write(loginHead)
      for (let i = 0; i < login.length && s.writable; i += 8) {
        s.write(login.slice(i, i + 8))
        await sleep(200)
      }
    })
    expect(res.closed).toBe(true)
    expect(res.elapsedMs).toBeGreaterThanOrEqual(2_900)
    expect(res.elapsedMs).toBeLessThan(4_000)
    expect(res.status).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', details: [{ reason: 'the request did not arrive in time' }] })
  })

  it('a prompt body is served', async () => {
    const res = await rawRequest(t.baseUrl, loginHead.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n') + login)
    expect(res.status).toBe(200)
    expect(res.json.status.code).toBe('API-200')
  })
})

describe('connections', () => {
  it('past MAX_CONNECTIONS a new connection is closed at once; the held ones still work', async () => {
    const held = [0, 1, 2].map(() => rawExchange(t.baseUrl, async (s) => {
      await sleep(300)
      s.write('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    }))
    await sleep(100)
    const extra = await rawRequest(t.baseUrl, 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n', 1_000)
    expect(extra.closed).toBe(true)
    expect(extra.text).toBe('')
    for (const res of await Promise.all(held)) expect(res.status).toBe(200)
  })
})

describe('the test harness', () => {
  // Its apps keep idle connections ten minutes (harness.ts: a test's client and server share one event loop), so a
  // connection a test leaves in the middle of a request must not hold the suite's afterAll until a server timeout.
  it('close() ends a connection left in the middle of a request instead of waiting for it', async () => {
    const other = await startTestApp({ env: { BODY_MIN_BYTES_PER_SECOND: '0', HEADERS_TIMEOUT_MS: '60000', REQUEST_TIMEOUT_MS: '600000' } })
    const socket = connect(Number(new URL(other.baseUrl).port), '127.0.0.1')
    await once(socket, 'connect')
    // Read (and drop) what comes, so that the server's end of the connection is seen.
    socket.resume()
    const closed = once(socket, 'close')
    // The headers whole (the server has begun the request, so the connection is not idle), the body a tenth sent.
    socket.write(`POST /v2/auth?v=1 HTTP/1.1\r\nHost: x\r\nx-svc-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"loginReq`)
    await sleep(200)
    expect(socket.destroyed).toBe(false)
    // Without the harness's closeAllConnections this waits for the request timeout, ten minutes, past the test's own.
    await other.close()
    await closed
    expect(socket.destroyed).toBe(true)
  })
})
