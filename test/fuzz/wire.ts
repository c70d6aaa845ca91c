// The fuzz gate's HTTP client: every case is written as raw bytes over a fresh node:net socket (so duplicated,
// oversized, control-byte and missing headers, bad framing and slow bodies are all possible), and the first complete
// response is parsed incrementally (Content-Length, chunked, or until close), 1xx interim answers skipped.
import { connect, type Socket } from 'node:net'

/**
 * How a merchant-family case is authenticated: the credential it is signed with (by name: the secret is looked up
 * when it is sent) and, for a share of cases, one thing wrong with its authentication. The signature, JWT or bearer
 * header is made at send time over the request as finally mangled, with a fresh date (test/fuzz/signing.ts).
 */
export interface Auth {
  scheme: 'signature' | 'jwt-hs256' | 'jwt-rs256' | 'oauth'
  /** The sandbox reporting key (signature, HS256) or OAuth client's token: testrest, testrest_acct (a meta key), othermerchant. */
  key: 'testrest' | 'acct' | 'other'
  /** The merchant acted for (v-c-merchant-id), when it is not the key's own organization. */
  merchant?: string
  /** One fault in the authentication itself, and the junk it uses. */
  mangle?: { kind: string; value?: string }
}

/** One generated request: serialisable, so a failing case can be printed and replayed. */
export type FuzzCase =
  | { type: 'http'; note: string; method: string; target: string; headers: [string, string][]; body?: string; contentLength?: 'auto' | 'none'; auth?: Auth; graceMs?: number }
  | { type: 'raw'; note: string; path: string; bytes: string; graceMs?: number; altPath?: string }
  | { type: 'slow'; note: string; path: string; head: string; body: string; chunk: number; everyMs: number; graceMs: number; altPath?: string }

export interface Answer {
  status: number | undefined
  headers: Record<string, string | string[]>
  body: Buffer
  /** The connection closed before a complete response arrived. */
  incomplete: boolean
  /** Milliseconds from connecting to the complete response (or to giving up). */
  elapsedMs: number
  /** Milliseconds from the last byte the client wrote to the complete response. */
  afterLastByteMs: number
}

/** The method and request target a case's family is judged by. */
export function caseTarget(c: FuzzCase): { method: string; path: string } {
  if (c.type === 'http') return { method: c.method, path: c.target }
  if (c.type === 'slow') return { method: c.head.split(' ')[0] ?? '', path: c.path }
  return { method: c.bytes.split(' ')[0] ?? '', path: c.path }
}

/** The bytes of an http case: request line, headers in order (repeats kept), Content-Length unless told not to. */
export function httpBytes(c: Extract<FuzzCase, { type: 'http' }>): Buffer {
  const body = c.body === undefined ? Buffer.alloc(0) : Buffer.from(c.body, 'utf8')
  const lines = [`${c.method} ${c.target} HTTP/1.1`]
  for (const [name, value] of c.headers) lines.push(`${name}: ${value}`)
  if ((c.contentLength ?? 'auto') === 'auto' && (c.body !== undefined || c.method === 'POST')) lines.push(`Content-Length: ${body.length}`)
  lines.push('Connection: close')
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body])
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sends a case and waits for its answer, at most `waitMs`. */
export function send(baseUrl: string, c: FuzzCase, waitMs: number): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl)
  const head = c.type === 'http' && c.method === 'HEAD'
  return new Promise((resolve) => {
    const started = performance.now()
    let lastByte = started
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Buffer[] = []
    let settled = false
    const finish = (answer: Omit<Answer, 'elapsedMs' | 'afterLastByteMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const now = performance.now()
      resolve({ ...answer, elapsedMs: Math.round(now - started), afterLastByteMs: Math.round(now - lastByte) })
    }
    const incomplete = () => finish({ ...(parseResponse(Buffer.concat(chunks), head, true) ?? { status: undefined, headers: {}, body: Buffer.concat(chunks) }), incomplete: true })
    const timer = setTimeout(incomplete, waitMs)
    socket.on('data', (d: Buffer) => {
      chunks.push(d)
      const parsed = parseResponse(Buffer.concat(chunks), head, false)
      if (parsed) finish({ ...parsed, incomplete: false })
    })
    socket.on('close', () => {
      const parsed = parseResponse(Buffer.concat(chunks), head, true)
      if (parsed) finish({ ...parsed, incomplete: false })
      else incomplete()
    })
    socket.on('error', () => {})
    socket.on('connect', () => {
      void write(socket, c).then(() => (lastByte = performance.now()))
    })
  })
}

async function write(socket: Socket, c: FuzzCase): Promise<void> {
  if (c.type === 'http') socket.write(httpBytes(c))
  else if (c.type === 'raw') socket.write(Buffer.from(c.bytes, 'latin1'))
  else {
    socket.write(c.head)
    for (let i = 0; i < c.body.length && socket.writable && !socket.destroyed; i += c.chunk) {
      await sleep(c.everyMs)
      if (socket.writable && !socket.destroyed) socket.write(c.body.slice(i, i + c.chunk))
    }
  }
}

/** The first complete final response in `data`, or undefined while more is needed (`closed`: no more will come). */
export function parseResponse(data: Buffer, head: boolean, closed: boolean): Omit<Answer, 'elapsedMs' | 'afterLastByteMs' | 'incomplete'> | undefined {
  let offset = 0
  for (;;) {
    const end = data.indexOf('\r\n\r\n', offset)
    if (end === -1) return undefined
    const [statusLine = '', ...lines] = data.subarray(offset, end).toString('latin1').split('\r\n')
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN)
    if (Number.isNaN(status)) return undefined
    const headers: Record<string, string | string[]> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      if (colon <= 0) continue
      const name = line.slice(0, colon).toLowerCase()
      const value = line.slice(colon + 1).trim()
      const had = headers[name]
      headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
    }
    const bodyStart = end + 4
    if (status >= 100 && status < 200) {
      offset = bodyStart
      continue
    }
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) }
    const length = headers['content-length']
    if (typeof length === 'string') {
      const n = Number(length)
      if (data.length - bodyStart < n) return closed ? { status, headers, body: data.subarray(bodyStart) } : undefined
      return { status, headers, body: data.subarray(bodyStart, bodyStart + n) }
    }
    if (String(headers['transfer-encoding'] ?? '').toLowerCase() === 'chunked') {
      const body = dechunk(data.subarray(bodyStart))
      return body ? { status, headers, body } : closed ? { status, headers, body: data.subarray(bodyStart) } : undefined
    }
    return closed ? { status, headers, body: data.subarray(bodyStart) } : undefined
  }
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const eol = data.indexOf('\r\n', at)
    if (eol === -1) return undefined
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16)
    if (Number.isNaN(size)) return undefined
    if (size === 0) return Buffer.concat(parts)
    if (data.length < eol + 2 + size + 2) return undefined
    parts.push(data.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}
