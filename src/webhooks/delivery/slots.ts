// How many attempts one subscription may have on the wire at once, in this process, so that one slow receiver never
// holds back the others. A healthy receiver gets up to PER_SUBSCRIPTION at once (more wait for a free one, briefly);
// one that answered slowly or timed out recently, or holds an attempt longer than SLOW_MS, gets SLOW_PER_SUBSCRIPTION
// and its other jobs are given back to the queue (DeferJob) instead of waiting in a slot of the shared job pool.
import type { Clock, Timer } from '../../platform/clock.js'

export const PER_SUBSCRIPTION = 64
export const SLOW_PER_SUBSCRIPTION = 2
export const SLOW_MS = 3_000
const SLOW_FOR_MS = 60_000

export class Deferred extends Error {
  override name = 'Deferred'
}

interface Waiter {
  resolve: () => void
  reject: (err: Error) => void
}

interface State {
  /** Slots taken (a slot handed from a releasing attempt to a waiter stays taken). */
  taken: number
  /** When each attempt on the wire started. */
  started: Map<number, number>
  waiters: Waiter[]
  slowUntil: number
  check: Timer | undefined
}

export type Release = (durationMs: number, timedOut: boolean) => void

export class SubscriptionSlots {
  readonly #states = new Map<string, State>()
  #seq = 0
  constructor(
    private readonly clock: Clock,
    private readonly now: () => number = () => performance.now(),
  ) {}

  #state(id: string): State {
    let s = this.#states.get(id)
    if (!s) this.#states.set(id, (s = { taken: 0, started: new Map(), waiters: [], slowUntil: 0, check: undefined }))
    return s
  }

  #slow(s: State): boolean {
    const now = this.now()
    if (s.slowUntil > now) return true
    for (const started of s.started.values()) if (now - started > SLOW_MS) return this.#markSlow(s)
    return false
  }

  #markSlow(s: State): true {
    s.slowUntil = this.now() + SLOW_FOR_MS
    for (const w of s.waiters.splice(0)) w.reject(new Deferred('the receiver is slow'))
    return true
  }

  /** Resolves with the slot's release once one is free; rejects with Deferred when the job should be given back. */
  async acquire(id: string): Promise<Release> {
    const s = this.#state(id)
    const slow = this.#slow(s)
    if (s.taken < (slow ? SLOW_PER_SUBSCRIPTION : PER_SUBSCRIPTION)) s.taken++
    else if (slow) throw new Deferred('the receiver is slow')
    else {
      // An attempt that stays on the wire past SLOW_MS while others wait marks the receiver slow and sends them back.
      s.check ??= this.clock.setTimer(SLOW_MS, () => {
        s.check = undefined
        this.#slow(s)
      })
      await new Promise<void>((resolve, reject) => s.waiters.push({ resolve, reject }))
    }
    const token = this.#seq++
    s.started.set(token, this.now())
    return (durationMs, timedOut) => {
      s.started.delete(token)
      if (timedOut || durationMs >= SLOW_MS) this.#markSlow(s)
      const next = s.waiters.shift()
      if (next) return next.resolve()
      s.taken--
      if (s.taken === 0 && s.slowUntil <= this.now()) {
        s.check?.cancel()
        this.#states.delete(id)
      }
    }
  }
}
