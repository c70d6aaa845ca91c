// The SQLite reader thread: runs a report's page queries on a read-only connection of its own, so that SQLite's work
// for the next page (its json_extract of each row's fields, most of a report's time) runs beside the event loop's
// formatting of the page before, on the other core. Started by bulk-reader.ts with the database file's path; it
// answers each query with its rows as arrays (a statement in raw mode), or with the error, by the query's number.
import SQLite from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'
import { ARRAY_STATEMENT_CACHE_SIZE, statementCache } from './statement-cache.js'

export interface ReaderThreadData {
  /** The database file (the server created it and set WAL mode on it). */
  path: string
}
export type ReaderIn = { query: number; sql: string; parameters: readonly unknown[] } | { close: true }
export type ReaderOut = { query: number; rows: unknown[][] } | { query: number; message: string; code?: string }

const { path } = workerData as ReaderThreadData
let db: SQLite.Database | undefined

// Opened with the first query, so that a failure is that query's answer (with its message), not the thread's end.
function open(): SQLite.Database {
  if (!db) {
    db = new SQLite(path, { fileMustExist: true })
    // Reads only: a page query can never write, whatever its text.
    db.pragma('query_only = ON')
    // A checkpoint or another process's recovery may hold the file a moment.
    db.pragma('busy_timeout = 5000')
  }
  return db
}
const statement = statementCache(ARRAY_STATEMENT_CACHE_SIZE, (sql) => open().prepare(sql).raw(true))

const port = parentPort!
port.on('message', (message: ReaderIn) => {
  if ('close' in message) {
    db?.close()
    port.close()
    return
  }
  let answer: ReaderOut
  try {
    answer = { query: message.query, rows: statement(message.sql).all(...message.parameters) as unknown[][] }
  } catch (err) {
    const e = err as Error & { code?: unknown }
    answer = { query: message.query, message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) }
  }
  port.postMessage(answer)
})
