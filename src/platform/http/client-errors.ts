// Requests Node answers before Fastify sees them: ones the HTTP parser rejects (control bytes, a bad Content-Length,
// Content-Length with Transfer-Encoding, a bad chunk size, headers or URL over the header limit), ones cut off by the
// header or request timeout or by the client's half-close, and an `Expect` other than 100-continue. Each is answered as an invalid request in the
// contract of the family at its path (API-420 on /v2, invalid_request at the token endpoint, a JSON error
// elsewhere), as a complete response with `Connection: close`. The raw bytes are never echoed and never logged:
// they hold keys, tokens and passwords. A CONNECT request, which Node hands to a `connect` listener, answers the same way.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import type { ConnectionError, FastifyBaseLogger } from 'fastify'
import { invalid } from '../errors.js'
import { uuidV7 } from './correlation.js'
import { renderFailure, type FamilyTable } from './error-family.js'

const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request line and headers are too large',
  ERR_HTTP_REQUEST_TIMEOUT: 'the request did not arrive in time',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not valid',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding together',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size is not valid',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not valid',
}

// ---- The first bytes of a request whose headers have not all arrived ------------------------------------------
// Node's parser reads a connection's bytes in C++ and hands a rejected request's bytes to the error only for some
// errors, and only the last chunk's: a request cut off inside its headers (the client half-closes, or the header
// timeout ends it) comes with none, and one whose headers came in several chunks with the wrong ones. So while a
// request's headers are incomplete, the chunk it began in is kept (its first 4 KiB: the request line), from the
// parser's per-chunk callback. That callback is Node's internal (`_http_common`'s HTTPParser.kOnExecute), read
// defensively: where it is missing (another Node, a TLS socket read in JavaScript) nothing is kept, and the family
// comes from the error's own bytes as before. On the usual path it costs one native call per chunk.

interface Parser {
  headersCompleted(): boolean
  getCurrentBuffer(): Buffer
  [callback: number]: unknown
}

const ON_EXECUTE = (() => {
  try {
    const { HTTPParser } = createRequire(import.meta.url)('_http_common') as { HTTPParser?: { kOnExecute?: unknown } }
    return typeof HTTPParser?.kOnExecute === 'number' ? HTTPParser.kOnExecute : undefined
  } catch {
    return undefined
  }
})()

/** Per connection: the start of its request whose headers are still arriving, if any. */
const unfinished = new WeakMap<Socket, { head: Buffer | undefined }>()

/** The server's `connection` listener (after Node's own, which gives the socket its parser). */
export function rememberRequestStarts(socket: Socket): void {
  const parser = (socket as Socket & { parser?: Partial<Parser> | null }).parser
  if (ON_EXECUTE === undefined || !parser || typeof parser[ON_EXECUTE] !== 'function' || typeof parser.headersCompleted !== 'function' || typeof parser.getCurrentBuffer !== 'function') return
  const p = parser as Parser
  const state: { head: Buffer | undefined } = { head: undefined }
  unfinished.set(socket, state)
  const onExecute = p[ON_EXECUTE] as (...args: unknown[]) => unknown
  p[ON_EXECUTE] = function (this: unknown, ...args: unknown[]) {
    if (p.headersCompleted()) state.head = undefined
    else state.head ??= Buffer.from(p.getCurrentBuffer().subarray(0, 4096))
    return onExecute.apply(this, args)
  }
}

/** The path of a raw request's request line (origin or absolute form), to pick the family; '' when there is none. */
export function requestPath(packet: unknown): string {
  if (!Buffer.isBuffer(packet)) return ''
  const head = packet.subarray(0, 4096).toString('latin1')
  const end = head.search(/[\r\n]/)
  const target = (end === -1 ? head : head.slice(0, end)).split(' ')[1] ?? ''
  if (target.startsWith('/')) return target
  const absolute = /^https?:\/\/[^/?#]*(.*)$/i.exec(target)
  return absolute ? absolute[1] || '/' : ''
}

function response(status: number, headers: Record<string, string>, body: Buffer): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`]
  for (const [name, value] of Object.entries({ ...headers, 'content-length': String(body.length), connection: 'close' })) lines.push(`${name}: ${value}`)
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** Fastify's `clientErrorHandler` option. */
export function clientErrorHandler(table: FamilyTable, log: () => FastifyBaseLogger) {
  return (err: ConnectionError, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    // The response of a request already being read, when its timeout cut it off.
    const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    const reason = err.code === 'HPE_INVALID_EOF_STATE' ? (pending?.req ? 'the request ended before its body did' : 'the request ended inside its headers') : (REASONS[err.code] ?? 'malformed request')
    const correlationId = uuidV7(Date.now())
    // The code only: the error itself carries rawPacket, the raw bytes.
    log().info({ correlationId, clientError: err.code, reason }, 'client error')
    if (!socket.writable || pending?.headersSent) {
      socket.destroy()
      return
    }
    const family = table.forUrl(pending?.req?.url ?? requestPath(unfinished.get(socket)?.head ?? err.rawPacket))
    const { status, headers, body } = renderFailure(family, invalid([{ reason }]))
    socket.end(Buffer.concat([Buffer.from(response(status, { ...headers, 'x-correlationid': correlationId }, body), 'latin1'), body]), () => socket.destroy())
  }
}

/** The server's `checkExpectation` listener: an `Expect` other than 100-continue, which Node would answer 417 empty. */
export function expectationHandler(table: FamilyTable, log: () => FastifyBaseLogger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const correlationId = uuidV7(Date.now())
    log().info({ correlationId, reason: 'unsupported Expect' }, 'client error')
    const { status, headers, body } = renderFailure(table.forUrl(req.url ?? ''), invalid([{ field: 'Expect', reason: 'only 100-continue is supported' }]))
    res.writeHead(status, { ...headers, 'x-correlationid': correlationId, 'content-length': body.length, connection: 'close' })
    res.end(body)
  }
}

/**
 * The server's `connect` listener: a CONNECT request (a proxy tunnel, which this server is not), which Node would
 * otherwise answer by closing the connection. Answered as an invalid request in the family at its target.
 */
export function connectHandler(table: FamilyTable, log: () => FastifyBaseLogger) {
  return (req: IncomingMessage, socket: Socket): void => {
    socket.on('error', () => {})
    const correlationId = uuidV7(Date.now())
    log().info({ correlationId, reason: 'CONNECT is not supported' }, 'client error')
    const { status, headers, body } = renderFailure(table.forUrl(req.url ?? ''), invalid([{ reason: 'CONNECT is not supported' }]))
    socket.end(Buffer.concat([Buffer.from(response(status, { ...headers, 'x-correlationid': correlationId }, body), 'latin1'), body]), () => socket.destroy())
  }
}
