import { describe, expect, it } from 'vitest'
import type { Transaction } from './catalog.js'
import { eventsOf, mergeTallies, talliesOf } from './tallies.js'

const sale: Transaction = {
  organizationId: 'm',
  requestId: 'r1',
  type: 'sale',
  requestTime: '2026-03-01T10:15:00.000Z',
  submissionTime: '2026-03-01T23:00:00.000Z',
  fundingDate: '2026-03-04',
  paymentSubtype: 'VI',
  currency: 'EUR',
  amount: '10.00',
  settlementCurrency: 'USD',
  settlementAmount: '10.84',
  fields: { Fee: { TotalFeeAmount: '0.3591', TotalFeeCurrency: 'USD' }, Funding: { Status: 'S' }, Settlement: { Status: 'S' }, Conversion: { ConversionDate: '2026-03-01T12:00:00Z' } },
}

describe('tallies', () => {
  it('counts a submitted sale by request and submission hour, and funds it with its fee by funding date', () => {
    const byKind = Object.fromEntries(talliesOf(sale).map((t) => [`${t.tally}:${t.category}`, t]))
    expect(Object.keys(byKind).sort()).toEqual(['batch:SALES', 'funding:FEES', 'funding:PURCHASES', 'request:', 'rows:'])
    expect(byKind['request:']).toMatchObject({ bucket: '2026-03-01T10:00:00.000Z', paymentSubtype: 'VI', count: 1 })
    expect(byKind['batch:SALES']).toMatchObject({ bucket: '2026-03-01T23:00:00.000Z', currency: 'EUR', amount: '10.00' })
    expect(byKind['funding:PURCHASES']).toMatchObject({ bucket: '2026-03-04', currency: 'USD', amount: '10.84', settledCount: 1, fundedCount: 1, fundedAmount: '10.84' })
    expect(byKind['funding:FEES']).toMatchObject({ currency: 'USD', amount: '0.3591', fundedAmount: '0.3591' })
  })

  it('lists nothing but the row for what was not submitted or funded, and keeps pending fundings apart', () => {
    const auth = { ...sale, type: 'authorization' as const, submissionTime: undefined, fundingDate: undefined }
    expect(talliesOf(auth).map((t) => t.tally)).toEqual(['rows'])
    const pending = talliesOf({ ...sale, fields: { Funding: { Status: 'P' } } }).find((t) => t.category === 'PURCHASES')!
    expect(pending).toMatchObject({ count: 1, fundedCount: 0, fundedAmount: '0', settledCount: 1 })
  })

  it('merges exactly, keeping the larger scale', () => {
    const merged = mergeTallies([sale, { ...sale, requestId: 'r2', amount: '0.1', settlementAmount: '0.11' }, { ...sale, requestId: 'r3', type: 'refund', amount: '3' }])
    const find = (tally: string, category: string) => merged.find((t) => t.tally === tally && t.category === category)!
    expect(find('batch', 'SALES')).toMatchObject({ count: 2, amount: '10.10' })
    expect(find('batch', 'CREDITS')).toMatchObject({ count: 1, amount: '3' })
    expect(find('funding', 'PURCHASES')).toMatchObject({ count: 2, amount: '10.95' })
    expect(find('rows', '')).toMatchObject({ count: 3 })
  })

  it('indexes conversion and notification times given as ISO-8601 UTC, normalized to milliseconds', () => {
    expect(eventsOf(sale)).toEqual([{ organizationId: 'm', kind: 'conversion', time: '2026-03-01T12:00:00.000Z', requestId: 'r1' }])
    expect(eventsOf({ ...sale, fields: { Conversion: { ConversionDate: 'yesterday' }, NotificationOfChange: { Time: '2026-03-05T01:02:03.4Z' } } })).toEqual([
      { organizationId: 'm', kind: 'notification_of_change', time: '2026-03-05T01:02:03.400Z', requestId: 'r1' },
    ])
  })
})
