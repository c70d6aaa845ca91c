// SQL for the request log: batched inserts, the console's keyset pages, the operator's look-up by correlation id,
// and pruning by age in bounded batches.
import { sql, type CompiledQuery } from 'kysely'
import type { Executor } from '../platform/db/database.js'
import { COLUMNS, type RowValues } from './rows.js'
import type { RequestLogRecord, RequestLogRow } from './tables.js'

/**
 * The row counts an INSERT is written with: a batch goes as INSERTs of 100 rows, its rest as 20s, 5s and 1s. A few
 * fixed shapes are compiled once per handle and prepared once (SQLite's statement cache): compiling a 500-row
 * INSERT each time cost about as much as running it.
 */
export const INSERT_SHAPES = [100, 20, 5, 1] as const

/** Compiled once per database handle and shape (a transaction runs what its database compiled). */
const compiled = new WeakMap<Executor, Map<number, CompiledQuery>>()

function insertOf(db: Executor, rows: number): CompiledQuery {
  let shapes = compiled.get(db)
  if (!shapes) compiled.set(db, (shapes = new Map()))
  let query = shapes.get(rows)
  if (!query) {
    const placeholder = Object.fromEntries(COLUMNS.map((c) => [c, null])) as unknown as RequestLogRow
    query = db.insertInto('request_log').values(Array.from({ length: rows }, () => placeholder)).compile()
    shapes.set(rows, query)
  }
  return query
}

/** Writes the rows in multi-row INSERTs of the fixed shapes, in one transaction. */
export async function insertMany(db: Executor, rows: readonly RowValues[]): Promise<void> {
  if (rows.length === 0) return
  await db.transaction().execute(async (trx) => {
    let at = 0
    for (const shape of INSERT_SHAPES) {
      while (rows.length - at >= shape) {
        const parameters: unknown[] = []
        for (let i = at; i < at + shape; i++) parameters.push(...rows[i]!)
        await trx.executeQuery({ ...insertOf(db, shape), parameters })
        at += shape
      }
    }
  })
}

export interface RowFilter {
  organizationId: string
  /** Inclusive lower and exclusive upper bound of `at`, ISO-8601 UTC. */
  from?: string
  to?: string
  method?: string
  pathPrefix?: string
  /** 2 for 2xx … 5 for 5xx. */
  statusClass?: number
  scheme?: string
  keyId?: string
  correlationId?: string
  /** The keyset: rows strictly older than this (at, id). */
  before?: { at: string; id: number }
  limit: number
}

/** An organization's calls, newest first. */
export function list(db: Executor, f: RowFilter): Promise<RequestLogRecord[]> {
  let q = db.selectFrom('request_log').selectAll().where('organization_id', '=', f.organizationId)
  if (f.from !== undefined) q = q.where('at', '>=', f.from)
  if (f.to !== undefined) q = q.where('at', '<', f.to)
  if (f.method !== undefined) q = q.where('method', '=', f.method)
  // A prefix compared as text, not LIKE: no character of the caller's means a wildcard, and SQLite's LIKE ignores
  // case where PostgreSQL's does not.
  const prefix = f.pathPrefix
  if (prefix !== undefined) q = q.where(sql<string>`substr(path, 1, ${prefix.length})`, '=', prefix)
  if (f.statusClass !== undefined) q = q.where('status', '>=', f.statusClass * 100).where('status', '<', f.statusClass * 100 + 100)
  if (f.scheme !== undefined) q = q.where('scheme', '=', f.scheme)
  if (f.keyId !== undefined) q = q.where('key_id', '=', f.keyId)
  if (f.correlationId !== undefined) q = q.where('correlation_id', '=', f.correlationId)
  const before = f.before
  if (before) q = q.where((eb) => eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]))
  return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(f.limit).execute()
}

/** Every call with this correlation id, across organizations, newest first (an operator's look-up). */
export function byCorrelationId(db: Executor, correlationId: string, limit: number): Promise<RequestLogRecord[]> {
  return db.selectFrom('request_log').selectAll().where('correlation_id', '=', correlationId).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/**
 * Of the `limit` first rows written (the lowest ids: no index of times is kept, migration 0025), deletes those older
 * than `before`; returns how many went. Rows are written about in the order of their times, but not exactly
 * (processes sharing a database each write their own batches; a clock may be set back), so a younger row among the
 * first is kept and the next call looks past it. Only `limit` rows younger than `before` all at the head stop pruning
 * (nothing goes) until they age: a clock set back by more than the retention.
 */
export async function deleteOldestOlderThan(db: Executor, before: string, limit: number): Promise<number> {
  const first = db.selectFrom('request_log').select(['id', 'at']).orderBy('id').limit(limit).as('first')
  const doomed = db.selectFrom(first).select('first.id').where('first.at', '<', before)
  const result = await db.deleteFrom('request_log').where('id', 'in', doomed).executeTakeFirst()
  return Number(result.numDeletedRows)
}
