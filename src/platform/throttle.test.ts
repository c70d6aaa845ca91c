import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../test/support/clock.js'
import { createThrottle } from './throttle.js'

describe('createThrottle', () => {
  it('allows the limit per window, then refuses until the window restarts', () => {
    const clock = new FakeClock(1_000_000)
    const throttle = createThrottle(2, 60_000, clock)
    expect(throttle.take('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
    clock.advance(30_500)
    expect(throttle.take('a')).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 30 })
    expect(throttle.take('a')).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 30 })
    clock.advance(29_500)
    expect(throttle.take('a').allowed).toBe(true) // a new window
  })

  it('peeks without counting: allowance left, or the wait once the window is full', () => {
    const clock = new FakeClock(0)
    const throttle = createThrottle(2, 60_000, clock)
    expect(throttle.peek('a')).toEqual({ allowed: true, limit: 2, remaining: 2, resetSeconds: 60 })
    throttle.take('a')
    expect(throttle.peek('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
    expect(throttle.peek('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
    throttle.take('a')
    clock.advance(45_000)
    expect(throttle.peek('a')).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 15 })
    clock.advance(15_000)
    expect(throttle.peek('a').allowed).toBe(true)
  })

  it('counts each key on its own', () => {
    const throttle = createThrottle(1, 60_000, new FakeClock(0))
    expect(throttle.take('a').allowed).toBe(true)
    expect(throttle.take('a').allowed).toBe(false)
    expect(throttle.take('b').allowed).toBe(true)
  })

  it('drops ended windows once many keys are tracked', () => {
    const clock = new FakeClock(0)
    const throttle = createThrottle(1, 1_000, clock)
    for (let i = 0; i < 10_000; i++) throttle.take(`k${i}`)
    clock.advance(1_000)
    expect(throttle.take('new').allowed).toBe(true)
    expect(throttle.take('k1').allowed).toBe(true) // its window had ended and was swept
  })
})
