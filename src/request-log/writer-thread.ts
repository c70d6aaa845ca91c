// The request log's writer thread: it writes the batches the event loop's thread hands it, on its own connection,
// so that the inserts' work (SQLite's B-trees, its WAL, pg's encoding) runs beside the requests instead of between
// them. Started by writer.ts with the database's URL; it answers each batch with its outcome, by the batch's number.
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { COLUMNS, decodeRows, type RowValues } from './rows.js'

export interface WriterThreadData {
  /** DATABASE_URL: `sqlite:<file>` or a PostgreSQL URL. */
  url: string
}
/** A batch: its number (for the answer) and its calls (rows.ts's SealedBatch; the numbers' buffer transferred). */
export type InMessage = { batch: number; count: number; numbers: ArrayBuffer; texts: string[] } | { close: true }
export type OutcomeMessage = { batch: number; ok: true } | { batch: number; ok: false; message: string; stack?: string }

/** Rows per SQLite transaction: the write lock is held for one chunk at a time, so the server's own writes wait little. */
const SQLITE_CHUNK = 250
/**
 * Rows per SQLite INSERT (450 parameters, under SQLite's 32,766): a statement run per row cost the thread 3.9–4.5 µs
 * of CPU a row, one per 50 rows 2.9–3.5 (a script of 300,000 rows into the table and its two indexes, three rounds).
 */
const SQLITE_ROWS_PER_INSERT = 50

interface Writer {
  write(rows: RowValues[]): Promise<void>
  close(): Promise<void>
}

/** Each driver loaded only by the thread that uses it (the other's modules cost start-up time and memory). */
async function sqliteWriter(path: string): Promise<Writer> {
  const { default: SQLite } = await import('better-sqlite3')
  let db: import('better-sqlite3').Database | undefined
  let chunk: ((rows: RowValues[]) => void) & { immediate: (rows: RowValues[]) => void } | undefined
  // Opened and prepared with the first batch, so that a failure is that batch's answer (with its message), not the
  // thread's end; the server created the file and its table, so a path to nothing is an error, not a new database.
  const open = () => {
    db ??= new SQLite(path, { fileMustExist: true })
    // The server's connection set WAL mode on the file; a CLI command or the server may hold the write lock a moment.
    db.pragma('busy_timeout = 5000')
    db.pragma('synchronous = NORMAL')
    const values = `(${COLUMNS.map(() => '?').join(', ')})`
    const insert = (rows: number) => db!.prepare(`INSERT INTO request_log (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => values).join(', ')}`)
    const insertOne = insert(1)
    const insertMany = insert(SQLITE_ROWS_PER_INSERT)
    // One array of parameters, filled in place for each statement (Array.prototype.flat took back what it saved).
    const parameters: RowValues[number][] = new Array(SQLITE_ROWS_PER_INSERT * COLUMNS.length)
    return db.transaction((rows: RowValues[]) => {
      let at = 0
      for (; at + SQLITE_ROWS_PER_INSERT <= rows.length; at += SQLITE_ROWS_PER_INSERT) {
        let p = 0
        for (let r = at; r < at + SQLITE_ROWS_PER_INSERT; r++) for (const value of rows[r]!) parameters[p++] = value
        insertMany.run(parameters)
      }
      for (; at < rows.length; at++) insertOne.run(rows[at])
    })
  }
  return {
    async write(rows) {
      chunk ??= open()
      // IMMEDIATE: the lock is taken (or waited for) before the first insert, as the server's transactions do.
      for (let at = 0; at < rows.length; at += SQLITE_CHUNK) chunk.immediate(rows.slice(at, at + SQLITE_CHUNK))
    },
    async close() {
      db?.close()
    },
  }
}

/** One statement per batch: each column as an array, unnested into rows by PostgreSQL. */
const PG_TYPES: Record<(typeof COLUMNS)[number], string> = {
  at: 'text',
  organization_id: 'text',
  method: 'text',
  path: 'text',
  status: 'integer',
  duration_us: 'integer',
  correlation_id: 'text',
  scheme: 'text',
  key_id: 'text',
}
const PG_INSERT = `INSERT INTO request_log (${COLUMNS.join(', ')}) SELECT * FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(', ')})`

async function postgresWriter(url: string): Promise<Writer> {
  const { default: pg } = await import('pg')
  // One connection, opened on the first batch and again after it is lost (the batch it was lost in is reported).
  let client: import('pg').Client | undefined
  return {
    async write(rows) {
      if (!client) {
        const c = new pg.Client({ connectionString: url })
        c.on('error', () => {
          if (client === c) client = undefined
        })
        await c.connect()
        client = c
      }
      await client.query({ name: 'request_log_insert', text: PG_INSERT, values: COLUMNS.map((_, i) => rows.map((r) => r[i])) })
    },
    async close() {
      await client?.end()
      client = undefined
    },
  }
}

/**
 * The thread's nice value (Linux gives each thread its own; the event loop's stays the process's): when the cores are
 * all busy, serving calls comes before recording them. At 10 the thread still gets about a tenth of a contended core
 * (CFS weights 110 against 1,024), some 14,000 rows a second on SQLite; beyond, the buffer's bound drops and counts.
 */
const NICE = 10

const { url } = workerData as WriterThreadData
try {
  setPriority(NICE)
} catch {
  // Not permitted or not supported here: the thread runs at the process's priority.
}
const writer = await (url.startsWith('sqlite:') ? sqliteWriter(url.slice('sqlite:'.length)) : postgresWriter(url))
const port = parentPort!
// Batches are written one after another, in the order they came; `close` after the last, and the thread ends.
let queue = Promise.resolve()
port.on('message', (message: InMessage) => {
  if ('close' in message) {
    queue = queue.then(async () => {
      await writer.close().catch(() => undefined)
      port.close()
    })
    return
  }
  queue = queue.then(async () => {
    let outcome: OutcomeMessage
    try {
      await writer.write(decodeRows({ count: message.count, numbers: new Float64Array(message.numbers), texts: message.texts }))
      outcome = { batch: message.batch, ok: true }
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err))
      outcome = { batch: message.batch, ok: false, message: e.message, stack: e.stack }
    }
    port.postMessage(outcome)
  })
})
