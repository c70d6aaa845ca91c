// Table types of the API request log (migration 0022).

/** One API call: never a body, never a header's value, the path's secrets masked. */
export interface RequestLogTable {
  /** Sorts in arrival order within one process (see recorder.ts): the keyset's tie-breaker after `at`. */
  id: string
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

export interface RequestLogTables {
  request_log: RequestLogTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    requestLog: RequestLogTables
  }
}
