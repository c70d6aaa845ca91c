// The request log's buffer: each API call is kept in a batch when it ends (rows.ts; no I/O on the request's path),
// and the batches are handed to the writer (writer.ts: a thread of its own), at most `intervalMs` after a batch's
// first call or at once when a batch is full. The timer is armed only while rows wait, on the injected clock (tests
// tick it). The buffer is bounded: while the database cannot keep up, calls beyond `maxBuffered` are dropped and
// counted, so memory never grows with the backlog. A batch the database refuses is dropped and counted too: this is
// an observation log, not work, so nothing is retried and a killed process loses at most what it had buffered (one
// interval's calls); a graceful shutdown writes them (close()).
import type { Clock, Timer } from '../platform/clock.js'
import type { LabelledCounter } from '../platform/counters.js'
import { CallBatch, type BufferedCall } from './rows.js'
import type { BatchWriter } from './writer.js'

export interface RecorderOptions {
  /** Calls per batch (and a batch this full is handed to the writer at once). */
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
  /** Writes a batch (writer.ts: on a thread of its own, or on this one). */
  writer: BatchWriter
  clock: Clock
  outcomes: LabelledCounter<RecorderOutcome>
  onError: (err: unknown) => void
  options?: Partial<RecorderOptions>
}): Recorder {
  const { clock, outcomes } = deps
  const { batchRows, maxBuffered, intervalMs } = { ...DEFAULT_RECORDER_OPTIONS, ...deps.options }
  // The batch calls are added to, and the full ones waiting to be written; `buffered` counts the calls in both.
  let current: CallBatch | undefined
  const sealed: CallBatch[] = []
  let buffered = 0
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

  /**
   * Writes the full batches and the one being filled when it was called. Calls that end while a batch is written go
   * into a new batch that waits for its own interval (armed by its first call) or until it is full: taken each time a
   * write ended, under load a batch held only the calls of one write's round trip to the thread, a few, so that the
   * per-batch costs (the thread's message and answer, a transaction, the numbers' typed array) fell on every few calls.
   */
  async function drain(): Promise<void> {
    if (current) {
      sealed.push(current)
      current = undefined
    }
    for (;;) {
      const batch = sealed.shift()
      if (!batch) return
      const count = batch.count
      buffered -= count
      try {
        await deps.writer.write(batch.seal())
        outcomes.inc('written', count)
      } catch (err) {
        outcomes.inc('dropped_write_failed', count)
        deps.onError(err)
      }
    }
  }

  async function flush(): Promise<void> {
    while (writing) await writing
    if (buffered === 0) return
    writing = drain().finally(() => {
      writing = undefined
    })
    await writing
    // A batch filled as the last write ended found `writing` still set and armed nothing: it is written now.
    if (sealed.length > 0) arm(0)
  }

  return {
    record(call) {
      if (buffered >= maxBuffered) {
        outcomes.inc('dropped_buffer_full')
        return
      }
      current ??= new CallBatch(batchRows)
      current.add(call)
      buffered++
      if (current.full) {
        sealed.push(current)
        current = undefined
      }
      // A full batch is written on the next turn; otherwise the first waiting row arms the interval.
      if (sealed.length > 0) {
        if (!writing) arm(0)
      } else if (!timer) arm(intervalMs)
    },
    flush,
    async close() {
      closed = true
      timer?.cancel()
      timer = undefined
      await flush()
      await deps.writer.close()
    },
  }
}
