// A report's pages read on SQLite by a thread of its own (reader-thread.ts), on its own read-only connection. On the
// event loop's thread SQLite's part of a page (the json_extract of each row's fields) came between the formatting of
// one page and the next, so a report took 1.3–1.5 times `sqlite3 -csv`'s time; on a thread it runs beside them, as a
// report on PostgreSQL reads on another process (docs/benchmarks.md, "Reports"). Each page is a query of its own, as
// on PostgreSQL: the thread's connection sees what was committed when the page's query began.
import { Worker } from 'node:worker_threads'
import type { CompiledQuery } from 'kysely'
import type { Clock, Timer } from '../clock.js'
import type { ReaderIn, ReaderOut, ReaderThreadData } from './reader-thread.js'

/**
 * Reads of many rows (a report's), as arrays of column values in the select list's order: no object per row, no
 * Kysely work per row. On SQLite, objects made reading a report's pages 12–24 % slower (better-sqlite3 alone, 200,000 rows).
 */
export interface BulkReads {
  /**
   * One compiled query's rows: the committed rows only. SQLite runs it on the reader thread (a database file), or on
   * the process's connection when no transaction holds it (in memory, or with no thread), as Kysely's own queries.
   */
  arrays(query: CompiledQuery): Promise<unknown[][]>
  /**
   * The caller's reading is over (a report's last page was read, or it stopped): SQLite's reader thread ends now if it
   * holds no query, giving back its memory (about 25 MB) before the report's file is downloaded, say, rather than
   * after IDLE_MS. A report still reading starts another with its next page.
   */
  release?(): void
}

export interface ThreadReads extends BulkReads {
  /** Ends the thread (after the queries it holds) and its connection. */
  close(): Promise<void>
}

/** The modules the thread's script is built from (its own imports of this folder). */
export const READER_MODULES = ['reader-thread', 'statement-cache'] as const

/** A thread with no query for this long ends, giving its memory back; the next query starts another. */
const IDLE_MS = 30_000

interface Thread {
  worker: Worker
  pending: Map<number, { query: CompiledQuery; resolve: (rows: unknown[][]) => void; reject: (err: Error) => void }>
  idle?: Timer
  /** Told to end (idle, or the database closing): its exit is no failure. */
  ending: boolean
  exited: boolean
}

export function threadReads(deps: {
  /** The database file. */
  path: string
  /** builtScript()'s for the reader thread (tests give one that ends at once). */
  script: URL
  /** Where queries run when the thread cannot: on the event loop's own connection. */
  inline: BulkReads
  /** Told once when the thread failed; every later query then runs inline. */
  onError: (err: Error) => void
  /** The idle timer's. */
  clock: Clock
  idleMs?: number
}): ThreadReads {
  let thread: Thread | undefined
  let broken = false
  let closed = false
  let next = 0

  function start(): Thread {
    const data: ReaderThreadData = { path: deps.path }
    // A small heap: the thread holds a page or two of rows at a time (a 503-field page is about 15 MB of text).
    const worker = new Worker(deps.script, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4 } })
    // The thread never keeps the process alive; close() ends it.
    worker.unref()
    const t: Thread = { worker, pending: new Map(), ending: false, exited: false }
    let failed = false
    const fail = (err: Error) => {
      if (thread === t) thread = undefined
      t.idle?.cancel()
      if (!failed && !t.ending) {
        broken = true
        deps.onError(err)
      }
      failed = true
      // The queries it held run on the event loop's connection instead: a report never fails for the thread's sake.
      for (const p of t.pending.values()) deps.inline.arrays(p.query).then(p.resolve, p.reject)
      t.pending.clear()
    }
    worker.on('message', (m: ReaderOut) => {
      const p = t.pending.get(m.query)
      t.pending.delete(m.query)
      if ('rows' in m) p?.resolve(m.rows)
      else p?.reject(Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code }))
      if (t.pending.size === 0 && !t.ending) t.idle = deps.clock.setTimer(deps.idleMs ?? IDLE_MS, () => void end(t))
    })
    worker.on('error', fail)
    worker.on('exit', (code) => {
      t.exited = true
      fail(new Error(`the database reader thread ended (exit code ${code})`))
    })
    return t
  }

  /** Ends a thread after the queries it holds (messages are answered in order); resolves when it has exited. */
  function end(t: Thread): Promise<void> {
    if (thread === t) thread = undefined
    t.idle?.cancel()
    t.ending = true
    if (t.exited) return Promise.resolve()
    return new Promise((resolve) => {
      // Held until it ends: unreferenced, a process with nothing else left would exit before the connection closed.
      t.worker.ref()
      t.worker.once('exit', () => resolve())
      t.worker.postMessage({ close: true } satisfies ReaderIn)
    })
  }

  return {
    arrays(query) {
      if (broken || closed) return deps.inline.arrays(query)
      const t = (thread ??= start())
      t.idle?.cancel()
      const number = next++
      return new Promise((resolve, reject) => {
        t.pending.set(number, { query, resolve, reject })
        t.worker.postMessage({ query: number, sql: query.sql, parameters: query.parameters } satisfies ReaderIn)
      })
    },
    release() {
      if (thread && thread.pending.size === 0) void end(thread)
    },
    async close() {
      closed = true
      if (thread) await end(thread)
    },
  }
}
