// Time comes through this interface so that expiry, lockouts, schedules, retries and pollers are tested with a
// fake clock instead of sleeps. It is the one place in src that may call setTimeout.

export interface Timer {
  cancel(): void
}

export interface Clock {
  now(): Date
  /** now() as milliseconds since the epoch, without making a Date: for checks on every request. */
  nowMs(): number
  /**
   * Calls `fn` once, `ms` from now. A returned promise is awaited by a fake clock's tick(); `fn` handles its own
   * errors (a rejection here is an unhandled rejection). Real timers are unref'd: a pending timer never keeps a
   * process alive, so shutdown does not wait for the next poll.
   */
  setTimer(ms: number, fn: () => void | Promise<void>): Timer
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(() => void fn(), ms)
    handle.unref()
    return { cancel: () => clearTimeout(handle) }
  },
}
