import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createHousekeeping } from './housekeeping.js'

describe('createHousekeeping', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('runs every task in order and reports the counts', async () => {
    const order: string[] = []
    const housekeeping = createHousekeeping({
      tasks: [
        { name: 'a', prune: async () => (order.push('a'), 2) },
        { name: 'b', prune: async () => (order.push('b'), 0) },
      ],
    })
    expect(await housekeeping.runOnce()).toEqual({ a: 2, b: 0 })
    expect(order).toEqual(['a', 'b'])
  })

  it('does not start a run while the last one is still going, and stops', async () => {
    let calls = 0
    let finish: () => void = () => {}
    const housekeeping = createHousekeeping({
      tasks: [{ name: 'slow', prune: () => (calls++, new Promise<number>((resolve) => (finish = () => resolve(1)))) }],
    })
    housekeeping.start(1_000)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(calls).toBe(1)
    await vi.advanceTimersByTimeAsync(3_000) // still running: no overlap
    expect(calls).toBe(1)
    finish()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(calls).toBe(2)
    housekeeping.stop()
    finish()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(calls).toBe(2)
  })

  it('reports a failed run and goes on with the next', async () => {
    let fail = true
    const errors: unknown[] = []
    const counts: Record<string, number>[] = []
    const housekeeping = createHousekeeping({
      tasks: [{ name: 't', prune: async () => (fail ? Promise.reject(new Error('db down')) : 3) }],
      onError: (err) => errors.push(err),
      onPruned: (c) => counts.push(c),
    })
    housekeeping.start(1_000)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(errors).toHaveLength(1)
    fail = false
    await vi.advanceTimersByTimeAsync(1_000)
    expect(counts).toEqual([{ t: 3 }])
    housekeeping.stop()
  })
})
