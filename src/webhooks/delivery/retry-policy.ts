// A subscription's retry policy as data, and the pure schedule computed from it. Times are minutes on the wire.
//
// Reading of the reference (the SDK model's own example: firstRetry 10, interval 30, 3 retries → ARITHMETIC retries at
// 10, 40 and 70 minutes, GEOMETRIC at 10, 300 and 9,000): retry n of a sequence is due `a + r(n-1)` (arithmetic) or
// `a·r^(n-1)` (geometric) minutes after the sequence's first failure, so `interval` is the time between two
// arithmetic retries. Each gap is measured from the failure before it (an attempt's own duration is not subtracted).
// With repeatSequenceCount s, the whole sequence of retries runs s more times, each after repeatSequenceWaitTime
// minutes: (R1 R2 R3) wait (R1 R2 R3). A notification is therefore attempted at most 1 + retries × (1 + s) times.

export type Algorithm = 'ARITHMETIC' | 'GEOMETRIC'

export interface RetryPolicy {
  algorithm: Algorithm
  firstRetry: number
  interval: number
  numberOfRetries: number
  /** `"true"`: exhausting a notification's retries suspends the subscription until its health check answers 200. */
  deactivateFlag: 'true' | 'false'
  repeatSequenceCount: number
  repeatSequenceWaitTime: number
  additionalAttributes?: Record<string, string>[]
}

/** The reference's defaults (developer guide: 3 retries, 1 minute apart, starting 1 minute after the failure). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  algorithm: 'ARITHMETIC',
  firstRetry: 1,
  interval: 1,
  numberOfRetries: 3,
  deactivateFlag: 'false',
  repeatSequenceCount: 0,
  repeatSequenceWaitTime: 0,
})

export const LIMITS = {
  /** Minutes: one week, for firstRetry, an arithmetic interval and repeatSequenceWaitTime. */
  minutes: 10_080,
  geometricRatio: 100,
  numberOfRetries: 20,
  repeatSequenceCount: 10,
  /** No single gap is longer than this many minutes (a geometric sequence grows fast). */
  maxGapMinutes: 43_200,
} as const

const MINUTE = 60_000

/** Every attempt the policy allows: the first and every retry of every sequence. */
export function totalAttempts(p: RetryPolicy): number {
  return 1 + p.numberOfRetries * (1 + p.repeatSequenceCount)
}

/** Minutes from a sequence's first failure to its retry n (1-based). */
export function retryOffset(p: RetryPolicy, n: number): number {
  return p.algorithm === 'GEOMETRIC' ? p.firstRetry * p.interval ** (n - 1) : p.firstRetry + p.interval * (n - 1)
}

/**
 * How long to wait, in ms, after attempt `position` (1 = the first attempt) failed, before the next one; undefined
 * when the policy has no attempt left.
 */
export function delayAfter(p: RetryPolicy, position: number): number | undefined {
  if (position >= totalAttempts(p)) return undefined
  const retriesDone = position - 1
  const inSequence = retriesDone % p.numberOfRetries
  let minutes: number
  if (inSequence === 0) minutes = (retriesDone > 0 ? p.repeatSequenceWaitTime : 0) + retryOffset(p, 1)
  else minutes = retryOffset(p, inSequence + 1) - retryOffset(p, inSequence)
  return Math.round(Math.min(Math.max(minutes, 0), LIMITS.maxGapMinutes) * MINUTE)
}

/** Every gap of the schedule, in ms (what the tests and the README show). */
export function schedule(p: RetryPolicy): number[] {
  const gaps: number[] = []
  for (let position = 1; ; position++) {
    const gap = delayAfter(p, position)
    if (gap === undefined) return gaps
    gaps.push(gap)
  }
}

/** Up to a tenth of the gap, and at most a minute, added at random so that retries of many notifications spread out. */
export function withJitter(ms: number, random: () => number): number {
  return ms + Math.floor(random() * Math.min(ms / 10, MINUTE))
}

/** A receiver's Retry-After (delta seconds or an HTTP date) in ms from `now`, at most a day; undefined if absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (!value) return undefined
  const trimmed = value.trim()
  let ms: number
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000
  else {
    const at = Date.parse(trimmed)
    if (Number.isNaN(at)) return undefined
    ms = at - now.getTime()
  }
  return Math.min(Math.max(ms, 0), 86_400_000)
}
