import { describe, expect, it } from 'vitest'
import { renderSections, type DetailSections } from '../transactions/details.js'
import { detailsJson, encodeRows, readSections } from './details-body.js'

// Rows as the store writes them (renderSections), some sections missing, some text outside ASCII.
function row(n: number): Buffer {
  const sections: DetailSections = {
    request: { requestId: `r${n}`, cybersourceMerchantId: 'testrest', merchantReferenceNumber: n % 3 ? `ref-${n}` : 'Zoë “quoted” €' },
    settlement: n % 2 ? ({ transactionType: 'ics_bill', amount: `${n}.05`, currencyCode: 'EUR' } as DetailSections['settlement']) : undefined,
    authorization: undefined,
    feeAndFunding: undefined,
    other: n % 5 ? undefined : ({ firstName: 'Åsa', lastName: 'Öberg' } as DetailSections['other']),
    settlementStatus: undefined,
  }
  return Buffer.from(renderSections(sections))
}

/** The same body made the slow way: every section parsed and the whole page serialized. */
function reference(rows: Buffer[], ctx: { offset: number; limit: number; groupName: string | undefined }): string {
  const names = ['requestDetails', 'settlements', 'authorizations', 'feeAndFundingDetails', 'others', 'settlementStatuses']
  const body: Record<string, unknown> = { offset: ctx.offset, limit: ctx.limit, pageResults: rows.length }
  names.forEach((name, i) => {
    body[name] = rows
      .map((r) => r.toString('utf8').split('\n')[i]!)
      .filter((line) => line !== '')
      .map((line) => (i === 0 && ctx.groupName !== undefined ? { ...JSON.parse(line), groupName: ctx.groupName } : JSON.parse(line)))
  })
  return JSON.stringify(body)
}

describe('a purchase and refund details page put together from the stored rows', () => {
  it('is the JSON of every section, in order, with and without a group name', () => {
    const rows = Array.from({ length: 61 }, (_, n) => row(n))
    for (const groupName of [undefined, 'Gruppe “Süd”']) {
      const ctx = { organizationId: 'testrest', groupName, offset: 40, limit: 2000 }
      const body = detailsJson(rows, ctx)
      expect(body.toString('utf8')).toBe(reference(rows, ctx))
    }
  })

  it('is the same body from the rows read as text (PostgreSQL), their bytes written into one reused buffer', () => {
    const rows = Array.from({ length: 61 }, (_, n) => row(n))
    const ctx = { organizationId: 'testrest', groupName: 'Gruppe “Süd”', offset: 40, limit: 2000 }
    const encoded = encodeRows(rows.map((r) => r.toString('utf8')))
    encoded.forEach((bytes, n) => expect(bytes.equals(rows[n]!)).toBe(true))
    expect(detailsJson(encoded, ctx).toString('utf8')).toBe(reference(rows, ctx))
    // Rows more than the buffer holds (4 MB, most of it text outside ASCII, 3 bytes a character): it grows, and
    // the rows already written keep their bytes.
    const wide = Array.from({ length: 3 }, (_, n) => `${'€'.repeat(600_000)}${n}`)
    const big = encodeRows(wide)
    expect(big.map((b) => b.toString('utf8'))).toEqual(wide)
    expect(big.map((b) => b.length)).toEqual([1_800_001, 1_800_001, 1_800_001])
  })

  it('reads a row\'s sections back alike from its bytes and from its text', () => {
    const ctx = { organizationId: 'testrest', groupName: 'G', offset: 0, limit: 5 }
    for (const n of [0, 1, 5, 7]) expect(readSections(row(n).toString('utf8'), ctx)).toEqual(readSections(row(n), ctx))
    expect(readSections(row(5), ctx).other).toEqual({ firstName: 'Åsa', lastName: 'Öberg' })
  })

  it('holds only the paging fields past the end, and refuses a row with a section missing', () => {
    expect(detailsJson([], { organizationId: 'testrest', groupName: undefined, offset: 9, limit: 5 }).toString()).toBe('{"offset":9,"limit":5,"pageResults":0}')
    expect(() => detailsJson([Buffer.from('{"requestId":"x"}\n\n')], { organizationId: 'testrest', groupName: undefined, offset: 0, limit: 5 })).toThrow(/3 sections, not 6/)
  })
})
