// Raw HTTP/1.1 over a socket, for requests no HTTP client would send: malformed, slow, or without Host.
import { connect, type Socket } from 'node:net'

export interface RawAnswer {
  /** Everything the server wrote before it closed the connection (or the wait ran out). */
  text: string
  status: number | undefined
  headers: Record<string, string>
  body: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions inspect arbitrary JSON
  json: any
  /** Whether the server closed the connection. */
  closed: boolean
  /** Milliseconds from connecting to the close (or to the end of the wait). */
  elapsedMs: number
}

function parse(text: string, closed: boolean, elapsedMs: number): RawAnswer {
  const split = text.indexOf('\r\n\r\n')
  const head = split === -1 ? text : text.slice(0, split)
  const body = split === -1 ? '' : text.slice(split + 4)
  const [statusLine, ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]
  return { text, status: status === undefined ? undefined : Number(status), headers, body, json, closed, elapsedMs }
}

/**
 * Connects, lets `talk` write (all at once or slowly), and collects what comes back until the server closes the
 * connection or `waitMs` passes.
 */
export function rawExchange(baseUrl: string, talk: (socket: Socket) => void | Promise<void>, waitMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Buffer[] = []
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parse(Buffer.concat(chunks).toString('utf8'), closed, Date.now() - started))
    }
    const timer = setTimeout(() => finish(false), waitMs)
    socket.on('data', (d: Buffer) => chunks.push(d))
    socket.on('close', () => finish(true))
    // A reset after the answer was written still counts as closed.
    socket.on('error', () => finish(true))
    socket.on('connect', () => {
      Promise.resolve(talk(socket)).catch((err: unknown) => {
        if (!done) reject(err as Error)
      })
    })
  })
}

/** Sends the bytes at once and waits for the answer. */
export function rawRequest(baseUrl: string, bytes: string | Buffer, waitMs?: number): Promise<RawAnswer> {
  return rawExchange(baseUrl, (socket) => void socket.write(bytes), waitMs)
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Writes one byte every `everyMs` until the socket closes or the bytes run out. */
export async function trickle(socket: Socket, bytes: string, everyMs: number): Promise<void> {
  for (const ch of bytes) {
    if (socket.destroyed || !socket.writable) return
    socket.write(ch)
    await sleep(everyMs)
  }
}
