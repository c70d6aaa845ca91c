import { describe, expect, it } from 'vitest'
import { createRandom, hash32 } from './prng.js'

describe('seeded random', () => {
  it('repeats the same sequence for a seed and differs for another', () => {
    const a = createRandom('seed-1')
    const b = createRandom('seed-1')
    const c = createRandom('seed-2')
    const seqA = Array.from({ length: 20 }, () => a.next())
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA)
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA)
    expect(hash32('x')).toBe(hash32('x'))
  })

  it('stays in range and roughly uniform', () => {
    const r = createRandom('range')
    const counts = [0, 0, 0, 0]
    for (let i = 0; i < 40_000; i++) {
      const v = r.int(0, 3)
      counts[v]!++
      expect(r.next()).toBeLessThan(1)
    }
    for (const n of counts) expect(n).toBeGreaterThan(9_000)
    expect(r.digits(6)).toMatch(/^\d{6}$/)
    expect(['x', 'y']).toContain(r.weighted([['x', 1], ['y', 3]] as const))
  })
})
