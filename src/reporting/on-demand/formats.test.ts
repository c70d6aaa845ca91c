import { describe, expect, it } from 'vitest'
import { csvCell, csvLine, negotiate, xmlEmpty, xmlName, xmlText } from './formats.js'

describe('negotiate', () => {
  const all = ['json', 'csv', 'xml'] as const
  it('gives CSV and XML where offered, by preference, and JSON for everything else', () => {
    expect(negotiate('text/csv', all).format).toBe('csv')
    expect(negotiate('application/xml', all).format).toBe('xml')
    expect(negotiate('text/xml', all).format).toBe('xml')
    expect(negotiate('text/csv;q=0.5, application/xml', all).format).toBe('xml')
    expect(negotiate('application/json, text/csv', all).format).toBe('json')
    expect(negotiate('text/csv', ['json']).format).toBe('json')
    for (const accept of [undefined, '', '*/*', 'application/pdf', 'text/csv;q=0', 'TEXT/HTML']) expect(negotiate(accept, all)).toEqual({ format: 'json', contentType: 'application/json; charset=utf-8' })
  })

  it('labels JSON as HAL when HAL was asked for, as the official SDK does', () => {
    expect(negotiate('application/hal+json', all)).toEqual({ format: 'json', contentType: 'application/hal+json; charset=utf-8' })
  })
})

describe('CSV and XML pieces', () => {
  it('quotes CSV cells only when needed, doubling quotes, and ends records with CRLF', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(undefined)).toBe('')
    expect(csvLine(['a', undefined, 3])).toBe('a,,3\r\n')
  })

  it('escapes XML text and drops characters XML cannot hold', () => {
    expect(xmlText(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;')
    expect(xmlText('bell\u0007tab\t')).toBe('belltab\t')
    expect(xmlName('cybersourceBatchId')).toBe('CybersourceBatchID')
    expect(xmlEmpty('Settlement', { amount: '1.00', walletType: undefined, note: 'a&b' })).toBe('<Settlement Amount="1.00" Note="a&amp;b"/>')
  })
})
