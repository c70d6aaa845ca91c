import { describe, expect, it } from 'vitest'
import { v8FlagsToSet } from './server.js'

describe('the V8 flags finapi serve sets for itself', () => {
  it('sets its heap limits and turns off allocation-site pretenuring when the command line names neither', () => {
    expect(v8FlagsToSet([])).toEqual(['--heap-growing-percent=50', '--no-allocation-site-pretenuring'])
    expect(v8FlagsToSet(['--enable-source-maps', '--max-old-space-size=512'])).toHaveLength(2)
  })

  it('leaves a flag the command line names, in any of V8 spellings', () => {
    expect(v8FlagsToSet(['--heap-growing-percent=100'])).toEqual(['--no-allocation-site-pretenuring'])
    expect(v8FlagsToSet(['--heap_growing_percent=100'])).toEqual(['--no-allocation-site-pretenuring'])
    expect(v8FlagsToSet(['--allocation-site-pretenuring'])).toEqual(['--heap-growing-percent=50'])
    expect(v8FlagsToSet(['--no-allocation_site_pretenuring', '--heap-growing-percent=20'])).toEqual([])
  })
})
