// Raw malformed HTTP over a socket (bad request lines, bad Content-Length, Content-Length with Transfer-Encoding, bad
// chunks, non-ASCII bytes in the URL, control bytes, missing or repeated Host, odd Expect, oversized heads, random
// byte damage to a valid request), and a few slow clients. Bytes are carried as latin1 strings, so a case prints.
import fc from 'fast-check'
import { requestPath } from '../../src/platform/http/client-errors.js'
import type { Context } from './banking.js'
import type { FuzzCase } from './wire.js'

/**
 * The server limits the campaign runs with (short, so slow clients cost seconds, not minutes; and the webhook test
 * call, which makes its first attempt within the call, waits a second at most for a receiver).
 */
export const LIMITS = { HEADERS_TIMEOUT_MS: 1_000, REQUEST_TIMEOUT_MS: 2_000, BODY_MIN_BYTES_PER_SECOND: 50, BODY_RATE_WINDOW_MS: 1_000, OUTBOUND_TIMEOUT_MS: 1_000 }
/**
 * The throttles a campaign raises so that they do not hide the rest: the /v2 gateway's per-minute limit, OAuth's
 * sign-in and client-call guessing limits (issue 10), which would otherwise answer most of the campaign's sign-ins
 * 429, and the merchant API's calls per credential (issue 19 item 8), which would answer most of its signed calls 429.
 */
export const THROTTLES_RAISED = {
  RATE_LIMIT_PER_MINUTE: 1_000_000,
  OAUTH_SIGN_IN_PER_MINUTE: 1_000_000,
  OAUTH_SIGN_IN_PER_CLIENT_PER_MINUTE: 1_000_000,
  OAUTH_CLIENT_CALLS_PER_MINUTE: 1_000_000,
  OAUTH_CLIENT_CALLS_PER_CLIENT_PER_MINUTE: 1_000_000,
  MERCHANT_API_RATE_LIMIT_PER_MINUTE: 1_000_000,
}

const PATHS = ['/v2/accounts?v=1', '/v2/auth?v=1', '/v2/token?v=1', '/oauth2/v3/token', '/oauth2/v3/authorize?response_type=code', '/health/live', '/nothing']
/** The merchant family's paths for raw cases (unsigned: the parser's answers and the gateway's 401). */
export const MERCHANT_RAW_PATHS = ['/reporting/v3/reports', '/reporting/v3/report-subscriptions', '/sandbox/v1/clock', '/notification-subscriptions/v2/webhooks', '/kms/egress/v2/keys-sym', '/webhooks/v1/events', '/nrtf/v1/webhooks/x/replays']

const latin1 = (b: Buffer) => b.toString('latin1')
/**
 * The path the server picks a family by when the parser refuses a request: the request line's, as client-errors.ts
 * reads it (Node skips leading blank lines). When the parser accepts it, the router's path decides; either may apply.
 */
const pathOf = (bytes: string) => requestPath(Buffer.from(bytes.replace(/^(\r\n)+/, ''), 'latin1'))
const utf8 = (s: string) => latin1(Buffer.from(s, 'utf8'))

type Build = (path: string, ctx: Pick<Context, 'key'>) => string

const head = (method: string, path: string, ctx: Pick<Context, 'key'>, extra = '') => `${method} ${path} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${ctx.key}\r\nUser-Agent: fuzz\r\n${extra}`

const MALFORMED: [string, Build][] = [
  ['non-numeric Content-Length', (p, c) => `${head('POST', p, c, 'Content-Length: abc\r\n')}\r\n`],
  ['negative Content-Length', (p, c) => `${head('POST', p, c, 'Content-Length: -1\r\n')}\r\n`],
  ['two different Content-Lengths', (p, c) => `${head('POST', p, c, 'Content-Length: 2\r\nContent-Length: 3\r\n')}\r\n{}`],
  ['a list Content-Length', (p, c) => `${head('POST', p, c, 'Content-Length: 2, 2\r\n')}\r\n{}`],
  ['a huge Content-Length', (p, c) => `${head('POST', p, c, 'Content-Length: 99999999999999999999\r\n')}\r\n{}`],
  ['Content-Length with Transfer-Encoding', (p, c) => `${head('POST', p, c, 'Content-Length: 3\r\nTransfer-Encoding: chunked\r\n')}\r\n0\r\n\r\n`],
  ['a bad chunk size', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n')}\r\nzz\r\n{}\r\n0\r\n\r\n`],
  ['a huge chunk size', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n')}\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n`],
  ['a chunk extension', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n')}\r\n2;x="\u0001"\r\n{}\r\n0\r\n\r\n`],
  ['Transfer-Encoding gzip, chunked', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: gzip, chunked\r\nContent-Type: application/json\r\n')}\r\n2\r\n{}\r\n0\r\n\r\n`],
  ['Transfer-Encoding chunked, gzip', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: chunked, gzip\r\n')}\r\n2\r\n{}\r\n0\r\n\r\n`],
  ['a valid chunked body', (p, c) => `${head('POST', p, c, 'Transfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n')}\r\n2\r\n{}\r\n0\r\n\r\n`],
  ['a control byte in a header', (p, c) => `${head('GET', p, c, 'X-Bad: a\u0001b\r\n')}\r\n`],
  ['a NUL in a header', (p, c) => `${head('GET', p, c, 'Authorization: a\u0000b\r\n')}\r\n`],
  ['a header without a colon', (p, c) => `${head('GET', p, c, 'NoColonHere\r\n')}\r\n`],
  ['a space in a header name', (p, c) => `${head('GET', p, c, 'X Bad: 1\r\n')}\r\n`],
  ['an empty header name', (p, c) => `${head('GET', p, c, ': x\r\n')}\r\n`],
  ['an obs-fold continuation', (p, c) => `${head('GET', p, c, 'X-A: 1\r\n folded\r\n')}\r\n`],
  ['raw non-ASCII in the URL', (p) => `GET ${p}${p.includes('?') ? '&' : '?'}x=${utf8('é日')} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['raw non-ASCII in a header', (p, c) => `${head('GET', p, c, `X-Name: ${utf8('Zoë 😀')}\r\nConnection: close\r\n`)}\r\n`],
  ['a head over 16 KB', (p, c) => `${head('GET', p, c, `X-Big: ${'a'.repeat(17_000)}\r\n`)}\r\n`],
  ['a URL over 16 KB', (p) => `GET ${p}${p.includes('?') ? '&' : '?'}pad=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['no Host on HTTP/1.1', (p) => `GET ${p} HTTP/1.1\r\nx-svc-key: k\r\nUser-Agent: a\r\nConnection: close\r\n\r\n`],
  ['two Hosts', (p, c) => `${head('GET', p, c, 'Host: y\r\nConnection: close\r\n')}\r\n`],
  ['HTTP/1.0 without Host', (p) => `GET ${p} HTTP/1.0\r\n\r\n`],
  ['HTTP/9.9', (p) => `GET ${p} HTTP/9.9\r\nHost: x\r\n\r\n`],
  ['HTTP/0.9 style', (p) => `GET ${p}\r\n\r\n`],
  ['a lowercase method', (p) => `get ${p} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['an unknown method', (p) => `FUZZ ${p} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['double spaces', (p) => `GET  ${p}  HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['tabs as separators', (p) => `GET\t${p}\tHTTP/1.1\r\nHost: x\r\n\r\n`],
  ['bare LF line ends', (p, c) => head('GET', p, c, 'Connection: close\r\n').replace(/\r\n/g, '\n') + '\n'],
  ['leading empty lines', (p, c) => `\r\n\r\n${head('GET', p, c, 'Connection: close\r\n')}\r\n`],
  ['an absolute-form target', (p, c) => `${head('GET', `http://127.0.0.1${p}`, c, 'Connection: close\r\n')}\r\n`],
  ['an asterisk target', () => `OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
  ['CONNECT', () => `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`],
  ['Expect other than 100-continue', (p, c) => `${head('POST', p, c, 'Expect: something-else\r\nContent-Length: 0\r\n')}\r\n`],
  ['Expect 100-continue with a body', (p, c) => `${head('POST', p, c, 'Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n')}\r\n{}`],
  ['Upgrade to websocket', (p, c) => `${head('GET', p, c, 'Connection: Upgrade\r\nUpgrade: websocket\r\n')}\r\n`],
  ['a pipelined second request of junk', (p, c) => `${head('GET', p, c)}\r\n\u0001\u0002 junk\r\n\r\n`],
  ['pure garbage', () => '\u0000\u0001\u0002\u00ff\u00fe garbage \r\n\r\n'],
  ['TLS ClientHello bytes', () => '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003\r\n\r\n'],
]

/** A valid request with one byte of its head replaced: the parser must still answer in a contract. */
function byteDamage(ctx: Pick<Context, 'key'>, paths: string[]): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(...paths), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([path, at, byte]) => {
    const valid = `${head('GET', path, ctx, 'Connection: close\r\n')}\r\n`
    const i = at % (valid.length - 4)
    const bytes = valid.slice(0, i) + String.fromCharCode(byte) + valid.slice(i + 1)
    return { type: 'raw', note: `byte ${i} replaced by 0x${byte.toString(16)}`, path: pathOf(bytes), altPath: path, bytes, graceMs: LIMITS.REQUEST_TIMEOUT_MS }
  })
}

export function rawCases(ctx: Pick<Context, 'key'>, paths: string[] = PATHS): fc.Arbitrary<FuzzCase> {
  const malformed = fc.tuple(fc.constantFrom(...MALFORMED), fc.constantFrom(...paths)).map(([[note, build], path]): FuzzCase => {
    const bytes = build(path, ctx)
    return { type: 'raw', note, path, altPath: pathOf(bytes), bytes, graceMs: LIMITS.HEADERS_TIMEOUT_MS }
  })
  return fc.oneof({ weight: 3, arbitrary: malformed }, { weight: 1, arbitrary: byteDamage(ctx, paths) })
}

const MERCHANT_EVENT = JSON.stringify({ eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: 'slow-1', payerName: 'A slow client' } })
const LOGIN = JSON.stringify({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } })

/** A few slow clients: headers a byte at a time, bodies under the minimum rate, bodies that stop half-way. */
export function slowCases(ctx: Pick<Context, 'key' | 'partner'>, slowPaths = ['/v2/auth?v=1', '/oauth2/v3/token', '/oauth2/v3/authorize']): fc.Arbitrary<FuzzCase> {
  const paths = fc.constantFrom(...slowPaths)
  const form = (path: string) => path.startsWith('/oauth2')
  const bodyHead = (path: string, length: number | 'chunked') => `POST ${path} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${ctx.key}\r\nUser-Agent: slow\r\nContent-Type: ${form(path) ? 'application/x-www-form-urlencoded' : 'application/json'}\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`
  const body = (path: string) => (path.startsWith('/v2') ? LOGIN : form(path) ? `grant_type=client_credentials&client_id=${encodeURIComponent(ctx.partner.clientId)}&client_secret=${ctx.partner.secret}` : MERCHANT_EVENT)
  return fc.tuple(fc.constantFrom('headers', 'trickle', 'under-timeout', 'stalled', 'endless-chunks'), paths).map(([kind, path]): FuzzCase => {
    const b = body(path)
    switch (kind) {
      case 'headers':
        // Cut off before the request line is whole: the family of as much of its path as arrived, or the fallback.
        return { type: 'slow', note: 'headers a byte every 100 ms', path: '', altPath: path, head: '', body: `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(60)}\r\n\r\n`, chunk: 1, everyMs: 100, graceMs: LIMITS.HEADERS_TIMEOUT_MS }
      case 'trickle':
        return { type: 'slow', note: 'body at 10 bytes a second', path, head: bodyHead(path, b.length), body: b, chunk: 1, everyMs: 100, graceMs: 2 * LIMITS.BODY_RATE_WINDOW_MS }
      case 'under-timeout':
        return { type: 'slow', note: 'body at 80 bytes a second', path, head: bodyHead(path, b.length * 3), body: b.repeat(3), chunk: 8, everyMs: 100, graceMs: LIMITS.REQUEST_TIMEOUT_MS }
      case 'stalled':
        return { type: 'slow', note: 'body stops half-way', path, head: bodyHead(path, b.length), body: b.slice(0, 10), chunk: 10, everyMs: 10, graceMs: LIMITS.REQUEST_TIMEOUT_MS }
      default:
        return { type: 'slow', note: 'chunks that never end', path, head: bodyHead(path, 'chunked'), body: '5\r\nhello\r\n'.repeat(100), chunk: 10, everyMs: 50, graceMs: LIMITS.REQUEST_TIMEOUT_MS }
    }
  })
}
