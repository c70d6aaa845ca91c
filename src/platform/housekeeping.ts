// Periodic removal of rows that can never be used again: expired sessions, OAuth tokens, codes and consents.
// Without it those tables only grow. Every server process runs it on a timer (and `finapi prune` once); the
// deletes are idempotent, so processes sharing one database only repeat each other's work. Tasks marked atStart
// (what a killed process left behind, such as its temp files) also run once as soon as housekeeping starts.
import type { Clock } from './clock.js'
import { periodic } from './timers.js'

export interface PruneTask {
  /** What the count is of, as logged: `sessions`, `oauth tokens`, … */
  name: string
  /** Deletes what has become useless; returns how many rows went. */
  prune(): Promise<number>
  /** Also run once when housekeeping starts (a process starting is when a killed one's leftovers are found). */
  atStart?: boolean
}

export interface Housekeeping {
  /** Runs every task once, in order; returns the rows removed per task. */
  runOnce(): Promise<Record<string, number>>
  /**
   * Runs every `intervalMs` (from the end of the last run, so runs never overlap) until stop(). A second start()
   * without a stop() in between throws rather than leaving a second timer running. The atStart tasks run once at
   * once, beside the timer (they must be idempotent, as every task is).
   */
  start(intervalMs: number): void
  stop(): void
}

export function createHousekeeping(deps: {
  tasks: PruneTask[]
  clock: Clock
  onPruned?: (counts: Record<string, number>) => void
  onError?: (err: unknown) => void
}): Housekeeping {
  async function run(tasks: readonly PruneTask[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = {}
    for (const task of tasks) counts[task.name] = await task.prune()
    return counts
  }
  const runOnce = () => run(deps.tasks)
  const atStart = deps.tasks.filter((task) => task.atStart)

  const timer = periodic(
    'housekeeping',
    deps.clock,
    async () => {
      const counts = await runOnce()
      deps.onPruned?.(counts)
    },
    (err) => deps.onError?.(err),
  )
  return {
    runOnce,
    start(intervalMs) {
      timer.start(intervalMs)
      if (atStart.length > 0) run(atStart).then((counts) => deps.onPruned?.(counts), (err: unknown) => deps.onError?.(err))
    },
    stop: timer.stop,
  }
}
