// The one fake clock every test uses. advance() only moves time (synchronously, as most tests want: expiry and
// lockouts read now()); tick() moves time too and fires the timers that fall due on the way, in time order,
// awaiting each callback, so pollers and retries run deterministically without sleeping.
import type { Clock, Timer } from '../../src/platform/clock.js'

interface Pending {
  due: number
  seq: number
  fn: () => void | Promise<void>
}

export class FakeClock implements Clock {
  #now: number
  #timers = new Set<Pending>()
  #seq = 0

  constructor(start: Date | number = new Date('2026-01-15T00:00:00.000Z')) {
    this.#now = typeof start === 'number' ? start : start.getTime()
  }

  now(): Date {
    return new Date(this.#now)
  }

  nowMs(): number {
    return this.#now
  }

  setTimer(ms: number, fn: () => void | Promise<void>): Timer {
    const timer: Pending = { due: this.#now + Math.max(0, ms), seq: this.#seq++, fn }
    this.#timers.add(timer)
    return { cancel: () => void this.#timers.delete(timer) }
  }

  /** Moves time without firing timers; a timer that fell due fires on the next tick(). */
  advance(ms: number): void {
    this.#now += ms
  }

  /**
   * Moves time by `ms`, firing every timer due by then (including ones those callbacks schedule), earliest first;
   * time stands at each timer's due moment while it runs. tick() with no argument fires what is already due.
   */
  async tick(ms = 0): Promise<void> {
    const target = this.#now + ms
    for (;;) {
      let next: Pending | undefined
      for (const t of this.#timers) if (t.due <= target && (!next || t.due < next.due || (t.due === next.due && t.seq < next.seq))) next = t
      if (!next) break
      this.#timers.delete(next)
      this.#now = Math.max(this.#now, next.due)
      await next.fn()
    }
    this.#now = Math.max(this.#now, target)
  }

  /** How many timers are waiting: lets a test see that nothing leaked. */
  get pendingTimers(): number {
    return this.#timers.size
  }
}
