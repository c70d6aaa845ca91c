import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_POLICY, delayAfter, retryAfterMs, schedule, totalAttempts, withJitter, type RetryPolicy } from './retry-policy.js'

const MIN = 60_000
const policy = (over: Partial<RetryPolicy>): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, ...over })

describe('retry schedule', () => {
  it("follows the SDK model's example: arithmetic 10/40/70 minutes, geometric 10/300/9000 after the first failure", () => {
    const arithmetic = schedule(policy({ firstRetry: 10, interval: 30, numberOfRetries: 3 }))
    expect(arithmetic).toEqual([10 * MIN, 30 * MIN, 30 * MIN])
    expect(arithmetic.reduce((acc: number[], gap) => [...acc, (acc.at(-1) ?? 0) + gap], [])).toEqual([10 * MIN, 40 * MIN, 70 * MIN])
    const geometric = schedule(policy({ algorithm: 'GEOMETRIC', firstRetry: 10, interval: 30, numberOfRetries: 3 }))
    expect(geometric.reduce((acc: number[], gap) => [...acc, (acc.at(-1) ?? 0) + gap], [])).toEqual([10 * MIN, 300 * MIN, 9000 * MIN])
  })

  it('defaults to three retries a minute apart, starting a minute after the failure', () => {
    expect(schedule(DEFAULT_RETRY_POLICY)).toEqual([MIN, MIN, MIN])
    expect(totalAttempts(DEFAULT_RETRY_POLICY)).toBe(4)
  })

  it('repeats the whole sequence after repeatSequenceWaitTime', () => {
    const p = policy({ firstRetry: 2, interval: 3, numberOfRetries: 3, repeatSequenceCount: 2, repeatSequenceWaitTime: 10 })
    expect(totalAttempts(p)).toBe(10)
    expect(schedule(p)).toEqual([2, 3, 3, 12, 3, 3, 12, 3, 3].map((m) => m * MIN))
    expect(delayAfter(p, 10)).toBeUndefined()
  })

  it('has no retry without retries, and caps a gap at 30 days', () => {
    expect(schedule(policy({ numberOfRetries: 0, repeatSequenceCount: 3 }))).toEqual([])
    expect(schedule(policy({ algorithm: 'GEOMETRIC', firstRetry: 10_000, interval: 100, numberOfRetries: 2 }))).toEqual([10_000 * MIN, 43_200 * MIN])
  })

  it('adds at most a tenth of the gap, and at most a minute, of jitter', () => {
    expect(withJitter(10_000, () => 0)).toBe(10_000)
    expect(withJitter(10_000, () => 0.999)).toBe(10_999)
    expect(withJitter(60 * MIN, () => 0.5)).toBe(60 * MIN + 30_000)
  })

  it('reads Retry-After as seconds or an HTTP date, at most a day', () => {
    const now = new Date('2026-01-15T00:00:00Z')
    expect(retryAfterMs('120', now)).toBe(120_000)
    expect(retryAfterMs('Thu, 15 Jan 2026 00:02:00 GMT', now)).toBe(120_000)
    expect(retryAfterMs('999999', now)).toBe(86_400_000)
    expect(retryAfterMs('soon', now)).toBeUndefined()
    expect(retryAfterMs(undefined, now)).toBeUndefined()
  })
})
