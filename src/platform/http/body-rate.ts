// A minimum rate for request bodies: a body that brings fewer than `minBytesPerSecond` over any window of `windowMs`
// is cut off and answered as an invalid request in its family's contract, so a client sending a byte a second
// cannot hold a connection (and a parser) until the whole-request timeout. Added only to routes whose method
// carries a body, so reads pay nothing. Real timers, not the Clock: like Node's header and request timeouts, this
// measures bytes arriving on a real socket.
import { Transform, type TransformCallback } from 'node:stream'
import type { preParsingHookHandler, RouteOptions } from 'fastify'
import { invalid } from '../errors.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

class RateGuard extends Transform {
  #received = 0
  readonly #timer: NodeJS.Timeout
  constructor(source: { readonly complete: boolean }, minBytes: number, windowMs: number, onTooSlow: () => void) {
    super()
    // Fastify listens while it reads the body; a request answered without reading it (a 415, say) has no reader.
    this.on('error', () => {})
    this.#timer = setInterval(() => {
      if (source.complete) clearInterval(this.#timer)
      else if (this.#received < minBytes) {
        onTooSlow()
        this.destroy(invalid([{ reason: `the body arrived more slowly than ${Math.round((minBytes * 1000) / windowMs)} bytes a second` }]))
      } else this.#received = 0
    }, windowMs)
    this.#timer.unref()
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#received += chunk.length
    done(null, chunk)
  }
  override _flush(done: TransformCallback): void {
    clearInterval(this.#timer)
    done()
  }
  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    clearInterval(this.#timer)
    done(error)
  }
}

/** The preParsing hook; the payload's errors and end pass through the guard. */
export function bodyRateGuard(minBytesPerSecond: number, windowMs: number): preParsingHookHandler {
  const minBytes = Math.max(1, Math.floor((minBytesPerSecond * windowMs) / 1000))
  return (request, reply, payload, done) => {
    // The rest of the body will not be read: the connection closes after the answer.
    const guard = new RateGuard(request.raw, minBytes, windowMs, () => reply.header('connection', 'close'))
    payload.on('error', (err) => guard.destroy(err))
    // Fastify counts the body against Content-Length through the stream it reads.
    done(null, payload.pipe(guard))
  }
}

/** Fastify's `onRoute` hook: puts the guard on every route whose method carries a body. */
export function guardBodies(hook: preParsingHookHandler) {
  return (route: RouteOptions): void => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.some((m) => BODY_METHODS.has(m.toUpperCase()))) return
    const existing = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing]
    route.preParsing = [hook, ...existing]
  }
}
