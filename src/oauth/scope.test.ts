import { describe, expect, it } from 'vitest'
import { formatScope, isScope, isSubset, parseScope } from './scope.js'

describe('scope', () => {
  it('parses a space-separated list, dropping repeats and extra spaces', () => {
    expect(parseScope('accounts')).toEqual(['accounts'])
    expect(parseScope(' reporting  accounts reporting ')).toEqual(['reporting', 'accounts'])
    expect(parseScope('')).toEqual([])
  })

  it('refuses characters a scope token may not hold', () => {
    expect(parseScope('accounts"')).toBeUndefined()
    expect(parseScope('a\\b')).toBeUndefined()
    expect(parseScope('accounts\treporting')).toBeUndefined()
    expect(parseScope('konto\u00e9')).toBeUndefined()
  })

  it('formats in the catalog order', () => {
    expect(formatScope(['reporting', 'accounts'])).toBe('accounts reporting')
    expect(formatScope(['accounts'])).toBe('accounts')
  })

  it('knows the catalog and subsets', () => {
    expect(isScope('accounts')).toBe(true)
    expect(isScope('toString')).toBe(false)
    expect(isSubset(['accounts'], ['accounts', 'reporting'])).toBe(true)
    expect(isSubset(['accounts', 'payments'], ['accounts'])).toBe(false)
    expect(isSubset([], ['accounts'])).toBe(true)
  })
})
