// Many deliveries run at once; their database work is gathered so that it costs one statement or one commit for many:
// the notifications that jobs claimed together are read in one query, and attempts that finish in one turn of the
// event loop, or while a commit is in progress, are written together in one transaction (group commit). Neither waits
// on a timer: a load goes out at the end of the current turn, a write after this turn's I/O callbacks
// (setImmediate) or as soon as the one before it has committed.
import type { Executor } from '../../platform/db/database.js'

/** Loads by key, the keys asked for in one turn of the event loop together. */
export function batchLoader<K, V>(load: (keys: K[]) => Promise<Map<K, V>>, max = 500) {
  const pending: { key: K; resolve: (v: V | undefined) => void; reject: (err: unknown) => void }[] = []
  const flush = () => {
    const batch = pending.splice(0, max)
    if (pending.length > 0) queueMicrotask(flush)
    load([...new Set(batch.map((p) => p.key))]).then(
      (found) => batch.forEach((p) => p.resolve(found.get(p.key))),
      (err) => batch.forEach((p) => p.reject(err)),
    )
  }
  return (key: K): Promise<V | undefined> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) queueMicrotask(flush)
      pending.push({ key, resolve, reject })
    })
}

/**
 * Runs each submitted piece of work in a transaction, many pieces to one transaction: while one commits, what is
 * submitted meanwhile waits and goes into the next. A failing batch is run again piece by piece, each in a
 * transaction of its own, so one piece's failure is its own.
 */
export function groupCommit(db: Executor, max = 100) {
  type Item = { work: (trx: Executor) => Promise<unknown>; resolve: (v: unknown) => void; reject: (err: unknown) => void }
  const queue: Item[] = []
  let running = false

  async function drain(): Promise<void> {
    running = true
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, max)
        const results: unknown[] = []
        try {
          await db.transaction().execute(async (trx) => {
            for (const item of batch) results.push(await item.work(trx))
          })
          batch.forEach((item, i) => item.resolve(results[i]))
        } catch {
          for (const item of batch) await db.transaction().execute((trx) => item.work(trx)).then(item.resolve, item.reject)
        }
      }
    } finally {
      running = false
    }
  }

  let scheduled = false
  return <T>(work: (trx: Executor) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (v: unknown) => void, reject })
      if (running || scheduled) return
      // After the I/O callbacks of this turn of the event loop, so that the answers that arrived together commit together.
      scheduled = true
      setImmediate(() => {
        scheduled = false
        if (!running) void drain()
      })
    })
}
