// Table types of the API request log (migrations 0022, 0025).
import type { Generated, Insertable, Selectable } from 'kysely'

/** One API call: never a body, never a header's value, the path's secrets masked. */
export interface RequestLogTable {
  /**
   * The database's own number (SQLite's rowid, a PostgreSQL identity), in the order rows were written: the keyset's
   * tie-breaker after `at`, and the order pruning walks. pg reads a bigint as text, better-sqlite3 as a number.
   */
  id: Generated<number | string>
  /** When the call arrived (the injected clock), ISO-8601 UTC. */
  at: string
  /** The organization the call acted for; null for banking, OAuth calls of no organization's client, and refusals. */
  organization_id: string | null
  method: string
  path: string
  status: number
  duration_us: number
  correlation_id: string
  scheme: string
  /** The reporting key, JWT certificate, OAuth client or banking application: its id, never its secret. */
  key_id: string | null
}

/** A row as read. */
export type RequestLogRecord = Selectable<RequestLogTable>
/** A row as written: everything but its id. */
export type RequestLogRow = Omit<Insertable<RequestLogTable>, 'id'>

export interface RequestLogTables {
  request_log: RequestLogTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    requestLog: RequestLogTables
  }
}
