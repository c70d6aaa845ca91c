import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../test/support/clock.js'
import { systemClock } from './clock.js'
import { every } from './timers.js'

describe('every', () => {
  it('runs after each interval from the end of the last run, until stopped', async () => {
    const clock = new FakeClock(0)
    const at: number[] = []
    const stop = every(clock, 100, async () => void at.push(clock.now().getTime()), () => {})
    await clock.tick(350)
    expect(at).toEqual([100, 200, 300])
    stop()
    await clock.tick(1_000)
    expect(at).toHaveLength(3)
    expect(clock.pendingTimers).toBe(0)
  })

  it('refuses an interval that is not positive', () => {
    expect(() => every(new FakeClock(), 0, async () => {}, () => {})).toThrow(RangeError)
  })
})

describe('FakeClock', () => {
  it('fires timers in time order; advance() only moves time', async () => {
    const clock = new FakeClock(0)
    const fired: string[] = []
    clock.setTimer(30, () => void fired.push('b'))
    clock.setTimer(10, () => void fired.push('a'))
    clock.setTimer(50, () => void fired.push('c')).cancel()
    clock.advance(40)
    expect(fired).toEqual([])
    await clock.tick()
    expect(fired).toEqual(['a', 'b'])
    expect(clock.now().getTime()).toBe(40)
  })
})

describe('systemClock.setTimer', () => {
  it('fires once on the real clock, and not after cancel', async () => {
    let fired = 0
    systemClock.setTimer(5, () => void fired++)
    systemClock.setTimer(5, () => void fired++).cancel()
    await new Promise((resolve) => systemClock.setTimer(30, () => resolve(undefined)))
    expect(fired).toBe(1)
  })
})
