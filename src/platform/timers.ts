// Periodic work on the clock's timer. The next run is scheduled only when the last one has finished, so a slow
// run (a database that hangs) is never overlapped by the next one and runs cannot pile up.
import type { Clock } from './clock.js'

/**
 * Runs `task` every `ms` (measured from the end of the previous run) until the returned function is called.
 * A failed run goes to `onError` and the schedule goes on. Stopping during a run lets that run finish and
 * schedules nothing after it.
 */
export function every(clock: Clock, ms: number, task: () => Promise<unknown>, onError: (err: unknown) => void): () => void {
  if (!(ms > 0)) throw new RangeError(`every: the interval must be positive, got ${ms}`)
  let stopped = false
  let timer = clock.setTimer(ms, run)

  async function run(): Promise<void> {
    try {
      await task()
    } catch (err) {
      onError(err)
    }
    if (!stopped) timer = clock.setTimer(ms, run)
  }

  return () => {
    stopped = true
    timer.cancel()
  }
}

/** A start/stop pair around every(): a second start() while running is refused, so no timer can leak. */
export function periodic(name: string, clock: Clock, task: () => Promise<unknown>, onError: (err: unknown) => void) {
  let stop: (() => void) | undefined
  return {
    start(intervalMs: number): void {
      if (stop) throw new Error(`${name} is already started; stop() it first`)
      stop = every(clock, intervalMs, task, onError)
    },
    stop(): void {
      stop?.()
      stop = undefined
    },
  }
}

/**
 * Resolves on the event loop's next turn (setImmediate): long work awaits it between steps so that what arrived
 * meanwhile (a request, a health probe, a timer) is served first. Awaiting a promise alone never gives the loop a
 * turn, and on SQLite every statement is synchronous, so a chain of awaited statements holds the loop to its end.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
