import { describe, expect, it } from 'vitest'
import { collectGarbage } from './heap.js'

describe('collectGarbage', () => {
  it('collects what is no longer reachable at once, and leaves no gc in the global scope', () => {
    // Unreachable garbage well over what a young collection alone would leave: 40 MB of arrays held, then dropped.
    let held: number[][] | undefined = Array.from({ length: 400 }, () => new Array<number>(12_500).fill(1.5))
    const withGarbage = process.memoryUsage().heapUsed
    held = undefined
    collectGarbage()
    expect(held).toBeUndefined()
    expect(process.memoryUsage().heapUsed).toBeLessThan(withGarbage - 30 * 1024 * 1024)
    collectGarbage()
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined()
  })
})
