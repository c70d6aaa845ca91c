// Periodic removal of rows that can never be used again: expired sessions, OAuth tokens, codes and consents.
// Without it those tables only grow. Every server process runs it on a timer (and `finapi prune` once); the
// deletes are idempotent, so processes sharing one database only repeat each other's work.

export interface PruneTask {
  /** What the count is of, as logged: `sessions`, `oauth tokens`, … */
  name: string
  /** Deletes what has become useless; returns how many rows went. */
  prune(): Promise<number>
}

export interface Housekeeping {
  /** Runs every task once, in order; returns the rows removed per task. */
  runOnce(): Promise<Record<string, number>>
  /** Runs every `intervalMs` until stop(); a run still going when the next is due is not overlapped. */
  start(intervalMs: number): void
  stop(): void
}

export function createHousekeeping(deps: {
  tasks: PruneTask[]
  onPruned?: (counts: Record<string, number>) => void
  onError?: (err: unknown) => void
}): Housekeeping {
  let timer: NodeJS.Timeout | undefined
  let running = false

  async function runOnce(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {}
    for (const task of deps.tasks) counts[task.name] = await task.prune()
    return counts
  }

  return {
    runOnce,
    start(intervalMs) {
      timer = setInterval(() => {
        if (running) return
        running = true
        runOnce()
          .then((counts) => deps.onPruned?.(counts), deps.onError)
          .finally(() => {
            running = false
          })
      }, intervalMs)
      timer.unref()
    },
    stop() {
      if (timer) clearInterval(timer)
    },
  }
}
