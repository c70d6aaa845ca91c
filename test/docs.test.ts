// The error-code pages cannot drift from the code: they are exactly what `npm run docs:errors` generates from the
// families' tables.
import { describe, expect, it } from 'vitest'
import { stalePages } from '../scripts/docs-errors.js'

describe('docs', () => {
  it('has error-code pages that are exactly what npm run docs:errors writes', () => {
    expect(stalePages(), 'run npm run docs:errors').toEqual([])
  })
})
