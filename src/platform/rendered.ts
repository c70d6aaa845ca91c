// Sends a JSON answer rendered once per source object. Services hand out the same frozen-by-convention object
// for data that does not change (a customer's account list), so its bytes are serialized once, through the
// route's own response schema (the allow-list still applies), and reused until the object is dropped.
import type { FastifyReply } from 'fastify'

const rendered = new WeakMap<object, Buffer>()

/**
 * `source` identifies the data; `payload` builds the response body from it on the first send only. A source
 * still being read is sent when it arrives (the handler returns that promise); one already in memory is sent at
 * once, so a handler that returns this result needs no promise of its own on the fast path.
 */
export function sendRendered<T extends object>(reply: FastifyReply, source: T | Promise<T>, payload: (source: T) => unknown): Promise<void> | undefined {
  if (source instanceof Promise) return source.then((loaded) => send(reply, loaded, payload))
  send(reply, source, payload)
  return undefined
}

function send<T extends object>(reply: FastifyReply, source: T, payload: (source: T) => unknown): void {
  let body = rendered.get(source)
  if (!body) {
    body = Buffer.from(String(reply.serialize(payload(source))), 'utf8')
    rendered.set(source, body)
  }
  reply.type('application/json; charset=utf-8').send(body)
}
