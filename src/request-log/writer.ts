// Where the request log's batches are written. A database in a file or on a server is written by a thread of its own
// (writer-thread.ts) with its own connection: on the event loop's thread a row cost 20–65 µs of CPU between requests
// (the table's B-tree and two indexes, SQLite's WAL; docs/benchmarks.md), which is more than the 5 % of a request's
// the log may take. A database held in memory can only be reached through the process's own connection, so it is
// written there; so is every batch after the thread failed (reported once), the log then costing what it did.
import { Worker } from 'node:worker_threads'
import type { Db } from '../platform/db/database.js'
import { builtScript } from '../platform/thread-script.js'
import * as repo from './repository.js'
import { decodeRows, type SealedBatch } from './rows.js'
import type { InMessage, OutcomeMessage, WriterThreadData } from './writer-thread.js'

export interface BatchWriter {
  /**
   * Resolves once the batch is committed (a reader that flushed then sees it), rejects if the database refused it. The
   * batch's numbers may be transferred to the thread: the caller does not touch the batch again.
   */
  write(batch: SealedBatch): Promise<void>
  /** After the last write: ends the thread and its connection. */
  close(): Promise<void>
}

export function inlineWriter(db: Pick<Db, 'kysely'>): BatchWriter {
  return {
    write: (batch) => repo.insertMany(db.kysely, decodeRows(batch)),
    close: async () => undefined,
  }
}

/**
 * The thread's script (platform/thread-script.ts): the build's, unless a source it is built from changed since. With
 * no build, or a stale one, batches are written on this thread, as a database in memory's are.
 */
export function threadScript(sources = new URL('./', import.meta.url)): URL | undefined {
  return builtScript(sources, 'writer-thread', THREAD_MODULES)
}

/** The modules the thread's script is built from (its own imports of this folder). */
export const THREAD_MODULES = ['writer-thread', 'rows'] as const

export function threadWriter(deps: {
  url: string
  fallback: BatchWriter
  onError: (err: unknown) => void
  /** threadScript()'s, found once by the caller (tests give one that ends at once). */
  script: URL
}): BatchWriter {
  let worker: Worker | undefined
  let broken = false
  let closing = false
  let next = 0
  const pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>()

  function failAll(err: Error): void {
    for (const p of pending.values()) p.reject(err)
    pending.clear()
  }

  function start(): Worker {
    const data: WriterThreadData = { url: deps.url }
    // A small heap: the thread holds one batch at a time.
    const w = new Worker(deps.script, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 32 } })
    // The thread never keeps the process alive: close() ends it, and a killed process loses at most its batch.
    w.unref()
    w.on('message', (m: OutcomeMessage) => {
      const p = pending.get(m.batch)
      pending.delete(m.batch)
      if (m.ok) p?.resolve()
      else p?.reject(Object.assign(new Error(m.message), { stack: m.stack }))
    })
    w.on('error', (err) => {
      // The thread could not start or died: later batches are written on this thread.
      broken = true
      deps.onError(err)
      failAll(err)
    })
    w.on('exit', (code) => {
      if (worker === w) worker = undefined
      if (!closing && !broken) {
        broken = true
        deps.onError(new Error(`the request log's writer thread ended (exit code ${code})`))
      }
      failAll(new Error(`the request log's writer thread ended (exit code ${code})`))
    })
    return w
  }

  return {
    write(batch) {
      if (broken || closing) return deps.fallback.write(batch)
      const w = (worker ??= start())
      const number = next++
      return new Promise<void>((resolve, reject) => {
        pending.set(number, { resolve, reject })
        const numbers = batch.numbers.buffer as ArrayBuffer
        const message: InMessage = { batch: number, count: batch.count, numbers, texts: batch.texts }
        w.postMessage(message, [numbers])
      })
    },
    async close() {
      closing = true
      const w = worker
      if (!w) return
      await new Promise<void>((resolve) => {
        // Held by the thread until it ends: unreferenced, a process with nothing else left to do would exit while the
        // thread still writes, and before the rest of its shutdown (its log's last lines).
        w.ref()
        w.once('exit', () => resolve())
        const message: InMessage = { close: true }
        w.postMessage(message)
      })
    },
  }
}
