import { describe, expect, it } from 'vitest'
import { fromMinorUnits, multiply, rescale, parseDecimal, formatDecimal, subtract, sumDecimals } from './decimal.js'

describe('exact decimals', () => {
  it('adds without binary floating point error', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3')
    expect(sumDecimals(['0.1', '0.2', '-0.3'])).toBe('0.0')
    expect(sumDecimals(['9999999999999999.99', '0.01'])).toBe('10000000000000000.00')
    expect(sumDecimals(['1.2345', '0.0005', '2'])).toBe('3.2350')
    expect(sumDecimals([])).toBe('0')
  })

  it('multiplies and rounds half away from zero', () => {
    expect(multiply('19.99', '0.0239', 4)).toBe('0.4778')
    expect(multiply('0.05', '0.5', 2)).toBe('0.03')
    expect(multiply('-0.05', '0.5', 2)).toBe('-0.03')
    expect(multiply('100', '1.0843', 2)).toBe('108.43')
  })

  it('subtracts, rescales and formats minor units', () => {
    expect(subtract('10.00', '0.4778')).toBe('9.5222')
    expect(formatDecimal(rescale(parseDecimal('2.345'), 2))).toBe('2.35')
    expect(fromMinorUnits(5n, 2)).toBe('0.05')
    expect(fromMinorUnits(1234n, 0)).toBe('1234')
    expect(() => parseDecimal('1e3')).toThrow()
  })
})
