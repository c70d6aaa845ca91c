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

export interface GroupCommit<D> {
  /** Runs `work` in a transaction shared with other pieces submitted about the same time. */
  run<T>(work: (trx: Executor) => Promise<T>): Promise<T>
  /** Writes `item` with the batch's other items of its kind, by `writeData`, in the shared transaction. */
  add(item: D): Promise<void>
}

/**
 * Runs each submitted piece of work in a transaction, many pieces to one transaction: what is submitted in one turn
 * of the event loop, or while the transactions allowed at once are busy, goes into the next. Data items are written
 * together by `writeData` (multi-row statements) after the batch's pieces of work. A failing batch is run again
 * piece by piece, each in a transaction of its own, so one piece's failure is its own.
 */
export function groupCommit<D = never>(db: Executor, options: { max?: number; parallel?: number; writeData?: (trx: Executor, items: D[]) => Promise<void> } = {}): GroupCommit<D> {
  type Item = { work?: (trx: Executor) => Promise<unknown>; data?: D; resolve: (v: unknown) => void; reject: (err: unknown) => void }
  const max = options.max ?? 100
  // SQLite has one writer, so one transaction at a time; PostgreSQL commits several at once on its pooled connections.
  const parallel = options.parallel ?? 1
  const writeData = options.writeData ?? (async () => {})
  const queue: Item[] = []
  let running = 0
  let scheduled = false

  async function write(trx: Executor, batch: Item[], results: unknown[]): Promise<void> {
    const data: D[] = []
    for (const item of batch) {
      if (item.work) results.push(await item.work(trx))
      else {
        results.push(undefined)
        data.push(item.data as D)
      }
    }
    if (data.length > 0) await writeData(trx, data)
  }

  async function drain(): Promise<void> {
    running++
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, max)
        const results: unknown[] = []
        try {
          await db.transaction().execute((trx) => write(trx, batch, results))
          batch.forEach((item, i) => item.resolve(results[i]))
        } catch {
          for (const item of batch) {
            const own: unknown[] = []
            await db.transaction().execute((trx) => write(trx, [item], own)).then(() => item.resolve(own[0]), item.reject)
          }
        }
      }
    } finally {
      running--
    }
  }

  function submit(item: Item): void {
    queue.push(item)
    if (running >= parallel || scheduled) return
    // After the I/O callbacks of this turn of the event loop, so that the answers that arrived together commit together.
    scheduled = true
    setImmediate(() => {
      scheduled = false
      while (running < parallel && queue.length > 0) void drain()
    })
  }

  return {
    run: <T>(work: (trx: Executor) => Promise<T>) => new Promise<T>((resolve, reject) => submit({ work, resolve: resolve as (v: unknown) => void, reject })),
    add: (data: D) => new Promise<void>((resolve, reject) => submit({ data, resolve: resolve as (v: unknown) => void, reject })),
  }
}
