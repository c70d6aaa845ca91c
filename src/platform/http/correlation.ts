// Correlation ids, shared by every API family: the caller's id when it is a plain token (safe to echo and to
// log), otherwise a new UUID. Every answer echoes it as X-CorrelationID. The server's own are version 7 (RFC 9562:
// the time in milliseconds, then random bits), so that an index of them, such as the request log's look-up by
// correlation id, is appended to rather than written at random: over 2,000,000 rows a random key cost that index
// about 15 µs of CPU per row written, a time-ordered one about 1 µs (docs/benchmarks.md).
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
  return uuidV7(Date.now())
}

/** A version 7 UUID for the time `ms`: its first 48 bits the time, then version 4's random bits, relabelled 7. */
export function uuidV7(ms: number): string {
  const time = ms.toString(16).padStart(12, '0')
  // randomUUID()'s `xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx`: its 74 random bits after the version digit and its variant are kept.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`
}
