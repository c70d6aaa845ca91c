// Whether any process may have changed something this one remembers, asked without a query per use. A service that
// keeps rows in memory (the reporting keys every signed call needs) takes a stamp before it reads a row and uses the
// row while the stamp stays the same (stampedMemory, below). A channel is a table's name:
// - this process's own writes through Kysely are told with changed() as they commit (announced-writes.ts);
// - SQLite: `PRAGMA data_version`, which moves when any other connection (another process, or one of this process's
//   threads) commits to the file, read at most once per turn of the event loop (no row read): it does not move for
//   this process's own connection, whose writes are told as above;
// - PostgreSQL: notifications on `finapi_changes` whose payload names the table, sent by a trigger on it (its
//   feature's migration) when a change commits, by any process or anyone's SQL, and heard on one connection of
//   this process's own, opened on the first stamp. Until that connection is listening, and again from the moment it
//   fails until it is back, every stamp differs from every other: nothing remembered is used, so a notification
//   missed while not listening cannot leave a revoked key working.
import pg from 'pg'
import type SQLite from 'better-sqlite3'

export interface ChangeSignal {
  /**
   * A number equal to an earlier one only if no change on `channel` was announced in between, by this process or any
   * other sharing the database (take it before reading what is to be remembered).
   */
  stamp(channel: string): number
  /**
   * This process changed rows of the table `channel`, and the change has committed: what a read begun before then
   * remembered is not used. Called by the driver for every write (announced-writes.ts); other processes learn of it
   * from the database (data_version; the trigger).
   */
  changed(channel: string): void
  close(): Promise<void>
}

/** The one PostgreSQL channel (the triggers' migrations name it too); the payload names the change's channel. */
const PG_CHANNEL = 'finapi_changes'
/** How long after a failed or lost listening connection another is tried (the stamps meanwhile never repeat). */
const RECONNECT_AFTER_MS = 1_000

export function sqliteChanges(native: SQLite.Database): ChangeSignal {
  const dataVersion = native.prepare('PRAGMA data_version').pluck()
  let seen: unknown
  let foreign = 0
  const own = new Map<string, number>()
  // data_version is read once per turn of the event loop: the calls one turn handles (a loaded server reads several
  // sockets' requests in one) were all received by then, and the pragma, a read transaction of its own, cost more
  // than the check it spares. Forgotten when the turn's I/O is done (setImmediate runs right after it).
  let readThisTurn = false
  const nextTurn = () => {
    readThisTurn = false
  }
  return {
    stamp(channel) {
      if (!readThisTurn) {
        readThisTurn = true
        setImmediate(nextTurn)
        const version = dataVersion.get()
        if (version !== seen) {
          seen = version
          foreign++
        }
      }
      // Both only grow, so their sum moves whenever either does.
      return foreign + (own.get(channel) ?? 0)
    },
    changed(channel) {
      own.set(channel, (own.get(channel) ?? 0) + 1)
    },
    close: async () => undefined,
  }
}

export function postgresChanges(connectionString: string, onError: (error: Error) => void): ChangeSignal {
  // Stamps while not listening are negative and never repeat; stamps while listening are positive.
  let unheard = 0
  let heard = 1
  const counts = new Map<string, number>()
  let client: pg.Client | undefined
  let listening = false
  let triedAt = -Infinity
  let closed = false

  const moved = (channel: string) => counts.set(channel, (counts.get(channel) ?? 0) + 1)

  function listen(): void {
    triedAt = performance.now()
    const c = new pg.Client({ connectionString })
    client = c
    const lost = (error?: Error) => {
      if (client !== c) return
      listening = false
      client = undefined
      if (error && !closed) onError(error)
      c.end().catch(() => undefined)
    }
    c.on('error', lost)
    c.on('end', () => lost())
    c.on('notification', (message) => {
      if (message.channel === PG_CHANNEL && message.payload) moved(message.payload)
    })
    c.connect()
      .then(() => c.query(`LISTEN ${PG_CHANNEL}`))
      .then(() => {
        if (client !== c || closed) return
        // Whatever was remembered before this connection listened is not trusted: every stamp moves once.
        heard++
        listening = true
      })
      .catch(lost)
  }

  return {
    stamp(channel) {
      if (!listening) {
        if (!closed && client === undefined && performance.now() - triedAt >= RECONNECT_AFTER_MS) listen()
        return -++unheard
      }
      return heard + (counts.get(channel) ?? 0)
    },
    // Heard back on the listening connection as well once it commits; this moves the stamp at once.
    changed: moved,
    async close() {
      closed = true
      listening = false
      const c = client
      client = undefined
      if (c) await c.end().catch(() => undefined)
    },
  }
}

/**
 * Values read from the database and kept in this process, each with the stamp taken before its read: one is used
 * while no change on its channels has been announced since, by this process or any other, and for at most maxAgeMs
 * (only so that nothing is kept forever). Bounded by the weight of what is kept (1 a value unless `weigh` says
 * otherwise); when the next value would not fit, everything is forgotten at once: no bookkeeping on the hot path,
 * and the next reads fill it again.
 */
export interface StampedMemory<K, V> {
  /** The stamp to take before a read whose result is to be kept. */
  stamp(): number
  /** The value kept under `key` if it is still current at `stamp` (taken now when not given). */
  recall(key: K, stamp?: number): V | undefined
  /** Keeps what a read begun at `stamp` found. */
  keep(key: K, stamp: number, value: V): void
  forget(key: K): void
}

export function stampedMemory<K, V>(options: {
  changes: ChangeSignal
  /** The channels whose changes can make a kept value wrong. */
  channels: readonly string[]
  nowMs: () => number
  maxAgeMs: number
  capacity: number
  weigh?: (value: V) => number
  /** Whether a kept value may still be used at `nowMs`, besides its stamp and age (an expiring token's expiry). */
  usable?: (value: V, nowMs: number) => boolean
}): StampedMemory<K, V> {
  const { changes, channels, nowMs, maxAgeMs, capacity, usable } = options
  const weigh = options.weigh ?? (() => 1)
  const kept = new Map<K, { stamp: number; at: number; weight: number; value: V }>()
  let weight = 0
  // Stamps only grow (and, while PostgreSQL is not listening, never repeat), so their sum moves whenever one does.
  if (channels.length === 0) throw new Error('a stamped memory needs at least one channel')
  const stamp = () => {
    let sum = 0
    for (const channel of channels) sum += changes.stamp(channel)
    return sum
  }
  const forget = (key: K) => {
    const entry = kept.get(key)
    if (entry === undefined) return
    kept.delete(key)
    weight -= entry.weight
  }
  return {
    stamp,
    recall(key, at = stamp()) {
      const entry = kept.get(key)
      if (entry === undefined || entry.stamp !== at) return undefined
      const now = nowMs()
      return now - entry.at < maxAgeMs && (usable === undefined || usable(entry.value, now)) ? entry.value : undefined
    },
    keep(key, at, value) {
      forget(key)
      const w = weigh(value)
      if (weight + w > capacity) {
        kept.clear()
        weight = 0
      }
      kept.set(key, { stamp: at, at: nowMs(), weight: w, value })
      weight += w
    },
    forget,
  }
}
