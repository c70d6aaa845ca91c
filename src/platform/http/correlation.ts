// Correlation ids, shared by every API family: the caller's id when it is a plain token (safe to echo and to
// log), otherwise a new UUID. Every answer echoes it as X-CorrelationID.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const CORRELATION_ID = /^[\w.:-]{1,128}$/

/** The headers a caller may name its correlation id in, in order of preference. */
const HEADERS = ['x-correlationid', 'x-svc-correlationid'] as const

/** Whether a caller-supplied id may be echoed and logged as it is. */
export function isPlainCorrelationId(value: unknown): value is string {
  return typeof value === 'string' && CORRELATION_ID.test(value)
}

/** Fastify's `genReqId`: the request's id is its correlation id. */
export function correlationId(req: IncomingMessage): string {
  for (const name of HEADERS) {
    const value = req.headers[name]
    if (isPlainCorrelationId(value)) return value
  }
  return randomUUID()
}
