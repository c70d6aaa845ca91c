// The API request log: every call of the banking API, OAuth's endpoints and the merchant API family, recorded when it
// ends (recorder.ts buffers it; nothing on the request's path waits for the database), read by the console (an
// organization's own calls, filtered and paged) and by support (a call found by the correlation id the caller quotes).
// What a row holds: time, method, the path with secret query parameters masked (the logger's rule), status,
// duration, correlation id, the scheme and the credential's id the gateway saw, and the organization acted for. Never
// a body or a header's value.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import { invalid } from '../platform/errors.js'
import { AUTH_SCHEMES, type AuthScheme } from '../platform/http/caller.js'
import { redactUrl } from '../platform/logger.js'
import { nextTurn } from '../platform/timers.js'
import type { Recorder } from './recorder.js'
import * as repo from './repository.js'
import type { RequestLogRecord } from './tables.js'

/** The API families' paths: what is recorded (the platform's pages, health, metrics and documents are not). */
export const RECORDED_PREFIXES = ['/v2/', '/oauth2/', '/.well-known/', '/reporting/', '/notification-subscriptions/', '/kms/', '/nrtf/', '/webhooks/', '/sandbox/'] as const
/** A longer path is cut: a row never holds more than this of a caller's text. */
export const MAX_PATH_LENGTH = 2048
export const MAX_PAGE = 200
/** Rows pruned per statement, and statements per housekeeping run: a long backlog goes over several runs. */
export const PRUNE_BATCH = 5_000
export const PRUNE_BATCHES_PER_RUN = 20

export interface RequestLogEntry {
  id: string
  at: string
  organizationId: string | null
  method: string
  path: string
  status: number
  durationMs: number
  correlationId: string
  scheme: string
  keyId: string | null
}

export interface RequestLogQuery {
  /** ISO-8601 times: from inclusive, to exclusive. */
  from?: string
  to?: string
  method?: string
  pathPrefix?: string
  /** `2xx` … `5xx`. */
  statusClass?: string
  /** One of AUTH_SCHEMES (platform/http/caller.ts). */
  scheme?: string
  /** The reporting key, certificate, OAuth client or application id the call was made with. */
  keyId?: string
  correlationId?: string
  /** The previous page's `nextCursor`. */
  cursor?: string
  limit?: number
}

export interface RequestLogPage {
  entries: RequestLogEntry[]
  /** Pass as `cursor` for the next (older) page; null on the last. */
  nextCursor: string | null
}

export interface RequestLogService {
  /** The app's per-request observer (Feature.requestCompleted): buffers the call's row. */
  requestCompleted(request: FastifyRequest, reply: FastifyReply): void
  /** An organization's calls, newest first; only its own rows are ever read. */
  list(organizationId: string, query?: RequestLogQuery): Promise<RequestLogPage>
  /** An organization's calls with this correlation id (its own only: another's id finds nothing). */
  findForOrganization(organizationId: string, correlationId: string): Promise<RequestLogEntry[]>
  /** An operator's look-up across organizations (the CLI). */
  find(correlationId: string): Promise<RequestLogEntry[]>
  /** Deletes rows older than the retention, in bounded batches; returns how many went. */
  prune(): Promise<number>
  /** Writes what is buffered now. */
  flush(): Promise<void>
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const STATUS_CLASS = /^([1-5])xx$/
const PLAIN_ID = /^[\w.:-]{1,128}$/
/** A row's id in a cursor: the database's integer, within a double's exact range. */
const ROW_ID = /^\d{1,15}$/

function isRecorded(url: string): boolean {
  for (const prefix of RECORDED_PREFIXES) if (url.startsWith(prefix)) return true
  return url === '/v2'
}

/** The scheme a call's headers named, when no gateway got as far as knowing its caller. */
function schemeOfHeaders(request: FastifyRequest): AuthScheme {
  const h = request.headers
  if (request.url.startsWith('/v2')) return h['x-svc-key'] === undefined ? 'none' : h.authorization === undefined ? 'banking_key' : 'banking_token'
  const authorization = typeof h.authorization === 'string' ? h.authorization : ''
  if (h.signature !== undefined) return 'http_signature'
  if (/^basic /i.test(authorization)) return 'client_basic'
  if (/^bearer /i.test(authorization)) return request.url.startsWith('/oauth2/') ? 'none' : 'oauth'
  return 'none'
}

function entryOf(row: RequestLogRecord): RequestLogEntry {
  return {
    id: String(row.id),
    at: row.at,
    organizationId: row.organization_id,
    method: row.method,
    path: row.path,
    status: Number(row.status),
    durationMs: Number(row.duration_us) / 1000,
    correlationId: row.correlation_id,
    scheme: row.scheme,
    keyId: row.key_id,
  }
}

function time(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw invalid([{ field, reason: 'must be an ISO-8601 date and time' }])
  return new Date(ms).toISOString()
}

function cursorOf(row: RequestLogRecord): string {
  return Buffer.from(`${row.at}|${row.id}`).toString('base64url')
}

function parseCursor(cursor: string): { at: string; id: number } {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  if (at === undefined || id === undefined || extra !== undefined || Number.isNaN(Date.parse(at)) || !ROW_ID.test(id)) {
    throw invalid([{ field: 'cursor', reason: 'is not a cursor this log gave' }])
  }
  return { at, id: Number(id) }
}

export function createRequestLogService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; recorder: Recorder; retentionDays: number }): RequestLogService {
  const { db, clock, recorder } = deps
  const retentionMs = deps.retentionDays * 86_400_000

  return {
    requestCompleted(request, reply) {
      const url = request.url
      if (!isRecorded(url)) return
      const caller = request.caller
      const elapsed = reply.elapsedTime
      const masked = redactUrl(url)
      recorder.record({
        atMs: Math.round(clock.nowMs() - elapsed),
        organizationId: caller?.organizationId ?? null,
        method: request.method,
        path: masked.length > MAX_PATH_LENGTH ? masked.slice(0, MAX_PATH_LENGTH) : masked,
        status: reply.statusCode,
        durationUs: Math.round(elapsed * 1000),
        correlationId: request.id,
        scheme: caller?.scheme ?? schemeOfHeaders(request),
        keyId: caller?.keyId ?? null,
      })
    },

    async list(organizationId, query = {}) {
      const limit = query.limit ?? 50
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid([{ field: 'limit', reason: `must be an integer from 1 to ${MAX_PAGE}` }])
      const method = query.method?.toUpperCase()
      if (method !== undefined && !METHODS.has(method)) throw invalid([{ field: 'method', reason: `must be one of ${[...METHODS].join(', ')}` }])
      let statusClass: number | undefined
      if (query.statusClass !== undefined) {
        const m = STATUS_CLASS.exec(query.statusClass)
        if (!m) throw invalid([{ field: 'statusClass', reason: 'must be one of 1xx, 2xx, 3xx, 4xx, 5xx' }])
        statusClass = Number(m[1])
      }
      if (query.pathPrefix !== undefined && (query.pathPrefix === '' || query.pathPrefix.length > MAX_PATH_LENGTH)) {
        throw invalid([{ field: 'pathPrefix', reason: `must be 1 to ${MAX_PATH_LENGTH} characters` }])
      }
      if (query.scheme !== undefined && !(AUTH_SCHEMES as readonly string[]).includes(query.scheme)) throw invalid([{ field: 'scheme', reason: `must be one of ${AUTH_SCHEMES.join(', ')}` }])
      if (query.keyId !== undefined && !PLAIN_ID.test(query.keyId)) throw invalid([{ field: 'keyId', reason: 'must be 1 to 128 letters, digits, _ . : or -' }])
      await recorder.flush()
      const rows = await repo.list(db.kysely, {
        organizationId,
        scheme: query.scheme,
        keyId: query.keyId,
        from: time('from', query.from),
        to: time('to', query.to),
        method,
        pathPrefix: query.pathPrefix,
        statusClass,
        correlationId: query.correlationId,
        before: query.cursor === undefined ? undefined : parseCursor(query.cursor),
        limit: limit + 1,
      })
      const page = rows.slice(0, limit)
      return { entries: page.map(entryOf), nextCursor: rows.length > limit ? cursorOf(page[page.length - 1]!) : null }
    },

    async findForOrganization(organizationId, correlationId) {
      await recorder.flush()
      const rows = await repo.list(db.kysely, { organizationId, correlationId, limit: MAX_PAGE })
      return rows.map(entryOf)
    },

    async find(correlationId) {
      await recorder.flush()
      return (await repo.byCorrelationId(db.kysely, correlationId, MAX_PAGE)).map(entryOf)
    },

    async prune() {
      const before = new Date(clock.nowMs() - retentionMs).toISOString()
      let total = 0
      for (let i = 0; i < PRUNE_BATCHES_PER_RUN; i++) {
        const n = await repo.deleteOldestOlderThan(db.kysely, before, PRUNE_BATCH)
        total += n
        // None of the oldest rows was old enough: nothing behind them is either, but for a clock set back.
        if (n === 0) break
        // Between batches, what arrived meanwhile is served (on SQLite each statement holds the event loop).
        await nextTurn()
      }
      return total
    },

    flush: () => recorder.flush(),
  }
}
