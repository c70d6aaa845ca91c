import { describe, expect, it } from 'vitest'
import { csvCell, parseCsvLine } from './csv.js'

describe('CSV lines', () => {
  it('splits plain and quoted cells', () => {
    expect(parseCsvLine('a,b,,c')).toEqual(['a', 'b', '', 'c'])
    expect(parseCsvLine('"a,b","say ""hi""",')).toEqual(['a,b', 'say "hi"', ''])
    expect(parseCsvLine('')).toEqual([''])
  })

  it('refuses broken quoting', () => {
    expect(() => parseCsvLine('"open')).toThrow(/not closed/)
    expect(() => parseCsvLine('a"b')).toThrow(/quote inside/)
    expect(() => parseCsvLine('"a"b')).toThrow(/after a quoted cell/)
  })

  it('round-trips what csvCell writes', () => {
    const values = ['plain', 'a,b', 'q"uote', ' lead', '']
    expect(parseCsvLine(values.map(csvCell).join(','))).toEqual(values)
  })
})
