import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../test/support/clock.js'
import { createHousekeeping } from './housekeeping.js'

describe('createHousekeeping', () => {
  it('runs every task in order and reports the counts', async () => {
    const order: string[] = []
    const housekeeping = createHousekeeping({
      clock: new FakeClock(),
      tasks: [
        { name: 'a', prune: async () => (order.push('a'), 2) },
        { name: 'b', prune: async () => (order.push('b'), 0) },
      ],
    })
    expect(await housekeeping.runOnce()).toEqual({ a: 2, b: 0 })
    expect(order).toEqual(['a', 'b'])
  })

  it('does not start a run while the last one is still going, and stops', async () => {
    const clock = new FakeClock()
    let calls = 0
    let finish: () => void = () => {}
    const housekeeping = createHousekeeping({
      clock,
      tasks: [{ name: 'slow', prune: () => (calls++, new Promise<number>((resolve) => (finish = () => resolve(1)))) }],
    })
    housekeeping.start(1_000)
    const first = clock.tick(1_000) // the run hangs until finish()
    await Promise.resolve()
    expect(calls).toBe(1)
    expect(clock.pendingTimers).toBe(0) // nothing can start another run while this one is going
    clock.advance(3_000)
    expect(calls).toBe(1)
    finish()
    await first
    expect(clock.pendingTimers).toBe(1)
    const second = clock.tick(1_000)
    await Promise.resolve()
    expect(calls).toBe(2)
    housekeeping.stop()
    finish()
    await second
    await clock.tick(5_000)
    expect(calls).toBe(2)
    expect(clock.pendingTimers).toBe(0)
  })

  it('runs the atStart tasks once as soon as it starts, and every task on the timer', async () => {
    const clock = new FakeClock()
    const runs: string[] = []
    const counts: Record<string, number>[] = []
    const housekeeping = createHousekeeping({
      clock,
      tasks: [
        { name: 'rows', prune: async () => (runs.push('rows'), 0) },
        { name: 'leftovers', atStart: true, prune: async () => (runs.push('leftovers'), 1) },
      ],
      onPruned: (c) => counts.push(c),
    })
    housekeeping.start(1_000)
    await new Promise((resolve) => setImmediate(resolve))
    expect(runs).toEqual(['leftovers'])
    expect(counts).toEqual([{ leftovers: 1 }])
    await clock.tick(1_000)
    expect(runs).toEqual(['leftovers', 'rows', 'leftovers'])
    housekeeping.stop()
  })

  it('reports a failed run and goes on with the next', async () => {
    const clock = new FakeClock()
    let fail = true
    const errors: unknown[] = []
    const counts: Record<string, number>[] = []
    const housekeeping = createHousekeeping({
      clock,
      tasks: [{ name: 't', prune: async () => (fail ? Promise.reject(new Error('db down')) : 3) }],
      onError: (err) => errors.push(err),
      onPruned: (c) => counts.push(c),
    })
    housekeeping.start(1_000)
    await clock.tick(1_000)
    expect(errors).toHaveLength(1)
    fail = false
    await clock.tick(1_000)
    expect(counts).toEqual([{ t: 3 }])
    housekeeping.stop()
  })

  it('refuses a second start, so no second timer leaks; after stop it starts again', async () => {
    const clock = new FakeClock()
    let runs = 0
    const housekeeping = createHousekeeping({ clock, tasks: [{ name: 't', prune: async () => (runs++, 0) }] })
    housekeeping.start(1_000)
    expect(() => housekeeping.start(1_000)).toThrow(/already started/)
    expect(clock.pendingTimers).toBe(1)
    await clock.tick(1_000)
    expect(runs).toBe(1)
    housekeeping.stop()
    expect(clock.pendingTimers).toBe(0)
    housekeeping.start(500)
    await clock.tick(500)
    expect(runs).toBe(2)
    housekeeping.stop()
  })
})
