// Per-application throttling: a fixed window per key that starts with the key's first request. It runs inside
// the gateway's one request hook as a few map operations; the plugin it replaced (@fastify/rate-limit) added its
// own asynchronous hook and cost about a fifth of a fast read (measured with `npm run bench`, see README).
// Counted per process: N server processes allow up to N times the limit.
import type { Clock } from './clock.js'

export interface ThrottleDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Whole seconds until the window restarts (at least 1). */
  resetSeconds: number
}

export interface Throttle {
  /** Counts one call of `key` and answers whether it is within the limit. */
  take(key: string): ThrottleDecision
  /** Whether `key` has allowance left, counting nothing: a check before work that may not be counted yet. */
  peek(key: string): ThrottleDecision
}

/**
 * Ended windows are swept once this many keys are tracked, so an unbounded set of keys cannot grow memory forever.
 * After a sweep the next one waits until the map has doubled, so many live keys do not make every new key a scan.
 */
const SWEEP_AT = 10_000

export function createThrottle(limit: number, windowMs: number, clock: Clock): Throttle {
  const windows = new Map<string, { endsAt: number; count: number }>()
  let sweepAt = SWEEP_AT
  return {
    take(key) {
      const now = clock.nowMs()
      let window = windows.get(key)
      if (!window || window.endsAt <= now) {
        if (!window && windows.size >= sweepAt) {
          for (const [k, w] of windows) if (w.endsAt <= now) windows.delete(k)
          sweepAt = Math.max(SWEEP_AT, windows.size * 2)
        }
        window = { endsAt: now + windowMs, count: 0 }
        windows.set(key, window)
      }
      const allowed = window.count < limit
      if (allowed) window.count++
      return { allowed, limit, remaining: limit - window.count, resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) }
    },
    peek(key) {
      const now = clock.nowMs()
      const window = windows.get(key)
      if (!window || window.endsAt <= now) return { allowed: true, limit, remaining: limit, resetSeconds: Math.max(1, Math.ceil(windowMs / 1000)) }
      return { allowed: window.count < limit, limit, remaining: limit - window.count, resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) }
    },
  }
}
