// Periodic removal of rows that can never be used again: expired sessions, OAuth tokens, codes and consents.
// Without it those tables only grow. Every server process runs it on a timer (and `finapi prune` once); the
// deletes are idempotent, so processes sharing one database only repeat each other's work.
import type { Clock } from './clock.js'
import { periodic } from './timers.js'

export interface PruneTask {
  /** What the count is of, as logged: `sessions`, `oauth tokens`, … */
  name: string
  /** Deletes what has become useless; returns how many rows went. */
  prune(): Promise<number>
}

export interface Housekeeping {
  /** Runs every task once, in order; returns the rows removed per task. */
  runOnce(): Promise<Record<string, number>>
  /**
   * Runs every `intervalMs` (from the end of the last run, so runs never overlap) until stop(). A second start()
   * without a stop() in between throws rather than leaving a second timer running.
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
  async function runOnce(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {}
    for (const task of deps.tasks) counts[task.name] = await task.prune()
    return counts
  }

  const timer = periodic(
    'housekeeping',
    deps.clock,
    async () => {
      const counts = await runOnce()
      deps.onPruned?.(counts)
    },
    (err) => deps.onError?.(err),
  )
  return { runOnce, start: timer.start, stop: timer.stop }
}
