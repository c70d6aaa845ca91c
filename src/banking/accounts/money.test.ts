import { describe, expect, it } from 'vitest'
import { convertAmount } from './money.js'

describe('convertAmount', () => {
  it.each([
    ['100.00', '1', '100.00'],
    ['100.00', '0.6543', '65.43'],
    ['1.00', '0.655', '0.66'], // half away from zero
    ['-1.00', '0.655', '-0.66'],
    ['1.00', '0.654999', '0.65'],
    ['0.01', '0.1', '0.00'],
    ['-0.01', '0.1', '0.00'],
    ['1234.567', '1.5', '1851.85'],
    ['9999999999999999.99', '1', '9999999999999999.99'],
    ['0.10', '3', '0.30'], // the classic float trap: 0.1 * 3
    ['12', '2', '24.00'],
  ])('%s × %s = %s', (amount, rate, expected) => {
    expect(convertAmount(amount, rate)).toBe(expected)
  })

  it('keeps three decimals when asked', () => {
    expect(convertAmount('10.005', '1', 3)).toBe('10.005')
  })

  it('refuses results past 16 integer digits', () => {
    expect(convertAmount('9999999999999999.99', '1.5')).toBeUndefined()
  })

  it('rejects non-decimal input', () => {
    expect(() => convertAmount('1e3', '1')).toThrow()
  })
})
