// The request log's writer: each API call becomes a row in an in-memory buffer when it ends (no I/O on the request's
// path), and the buffer is written in one multi-row INSERT per batch, at most `intervalMs` after its first row or at
// once when a batch is full. The timer is armed only while rows wait, on the injected clock (tests tick it). The
// buffer is bounded: while the database cannot keep up, calls beyond `maxBuffered` are dropped and counted, so memory
// never grows with the backlog. A batch the database refuses is dropped and counted too: this is an observation log,
// not work, so nothing is retried and a killed process loses at most what it had buffered (one interval's calls);
// a graceful shutdown writes them (close()).
import { randomBytes } from 'node:crypto'
import type { Clock, Timer } from '../platform/clock.js'
import type { LabelledCounter } from '../platform/counters.js'
import type { Db } from '../platform/db/database.js'
import * as repo from './repository.js'
import type { RequestLogTable } from './tables.js'

/** A call as buffered: its time as milliseconds, made into text only when its batch is written. */
export interface BufferedCall {
  atMs: number
  organizationId: string | null
  method: string
  path: string
  status: number
  durationUs: number
  correlationId: string
  scheme: string
  keyId: string | null
}

export interface RecorderOptions {
  /** Rows per INSERT (and a batch this full is written at once). */
  batchRows: number
  /** Calls kept waiting at most; beyond, calls are dropped and counted. */
  maxBuffered: number
  /** How long the first waiting row waits for more before its batch is written. */
  intervalMs: number
}

export const DEFAULT_RECORDER_OPTIONS: RecorderOptions = { batchRows: 1_000, maxBuffered: 20_000, intervalMs: 250 }

export type RecorderOutcome = 'written' | 'dropped_buffer_full' | 'dropped_write_failed'

export interface Recorder {
  record(call: BufferedCall): void
  /** Writes every buffered call now (readers call it first, so a caller sees its own calls; close() too). */
  flush(): Promise<void>
  /** Cancels the timer and writes what is buffered. */
  close(): Promise<void>
}

export function createRecorder(deps: {
  db: Pick<Db, 'kysely'>
  clock: Clock
  outcomes: LabelledCounter<RecorderOutcome>
  onError: (err: unknown) => void
  options?: Partial<RecorderOptions>
}): Recorder {
  const { clock, outcomes } = deps
  const { batchRows, maxBuffered, intervalMs } = { ...DEFAULT_RECORDER_OPTIONS, ...deps.options }
  // Ids sort in the order calls ended within a process (the keyset's tie-breaker after the time, which a fake clock
  // or a busy millisecond shares), and the process's random tag keeps them unique across processes on one database.
  const tag = randomBytes(4).toString('hex')
  let seq = 0
  let buffer: BufferedCall[] = []
  let timer: Timer | undefined
  let timerMs = 0
  let writing: Promise<void> | undefined
  let closed = false

  /** Arms the timer for `ms` from now, unless it is already due sooner. */
  function arm(ms: number): void {
    if (closed) return
    if (timer) {
      if (ms >= timerMs) return
      timer.cancel()
    }
    timerMs = ms
    timer = clock.setTimer(ms, async () => {
      timer = undefined
      await flush()
    })
  }

  function rowOf(call: BufferedCall): RequestLogTable {
    return {
      id: `${tag}-${String(seq++).padStart(12, '0')}`,
      at: new Date(call.atMs).toISOString(),
      organization_id: call.organizationId,
      method: call.method,
      path: call.path,
      status: call.status,
      duration_us: call.durationUs,
      correlation_id: call.correlationId,
      correlation_key: repo.correlationKey(call.correlationId),
      scheme: call.scheme,
      key_id: call.keyId,
    }
  }

  async function drain(): Promise<void> {
    while (buffer.length > 0) {
      const batch = buffer.length <= batchRows ? buffer : buffer.slice(0, batchRows)
      buffer = batch === buffer ? [] : buffer.slice(batchRows)
      try {
        await repo.insertMany(deps.db.kysely, batch.map(rowOf))
        outcomes.inc('written', batch.length)
      } catch (err) {
        outcomes.inc('dropped_write_failed', batch.length)
        deps.onError(err)
      }
    }
  }

  async function flush(): Promise<void> {
    while (writing) await writing
    if (buffer.length === 0) return
    writing = drain().finally(() => {
      writing = undefined
    })
    await writing
  }

  return {
    record(call) {
      if (buffer.length >= maxBuffered) {
        outcomes.inc('dropped_buffer_full')
        return
      }
      buffer.push(call)
      // A full batch is written on the next turn; otherwise the first waiting row arms the interval.
      if (buffer.length >= batchRows) {
        if (!writing) arm(0)
      } else if (!timer) arm(intervalMs)
    },
    flush,
    async close() {
      closed = true
      timer?.cancel()
      timer = undefined
      await flush()
    },
  }
}
