// Sends a JSON answer rendered once per source object. Services hand out the same frozen-by-convention object
// for data that does not change (a customer's account list), so its bytes are serialized once, through the
// route's own response schema (the allow-list still applies), and reused until the object is dropped.
import type { FastifyReply } from 'fastify'

const rendered = new WeakMap<object, Buffer>()

/** `source` identifies the data; `payload` builds the response body from it on the first send only. */
export function sendRendered(reply: FastifyReply, source: object, payload: () => unknown): FastifyReply {
  let body = rendered.get(source)
  if (!body) {
    body = Buffer.from(String(reply.serialize(payload())), 'utf8')
    rendered.set(source, body)
  }
  return reply.type('application/json; charset=utf-8').send(body)
}
