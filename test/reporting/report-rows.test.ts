// A report's rows read page by page must be the window's rows once each, in report order, whatever the page size:
// on PostgreSQL two pages are read at once, each bounded by the keys a query of keys alone found (report-rows.ts),
// and with a filter on a field kept in the JSON one page after another; on SQLite one after another. Small pages
// make a sandbox's few hundred transactions many pages, and every way is checked against one page holding them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogValue } from '../../src/reporting/transactions/catalog.js'
import { iterateReportRows, type ReportRow, type ReportRowQuery } from '../../src/reporting/transactions/report-rows.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { transactionsOf } from '../support/reports.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-03-10T12:00:00Z')) })
})
afterAll(() => t.close())

const FIELDS = ['Request.RequestID', 'Request.TransactionDate', 'PaymentData.CurrencyCode', 'BillTo.FirstName', 'PaymentMethod.CardType', 'PaymentData.Amount']
const WINDOW = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-10T00:00:00.000Z' }

async function read(query: ReportRowQuery, pageSize: number): Promise<{ rows: ReportRow[]; pages: number[] }> {
  const rows: ReportRow[] = []
  const pages: number[] = []
  for await (const page of iterateReportRows(t.db, query, FIELDS, pageSize)) {
    pages.push(page.length)
    rows.push(...page)
  }
  return { rows, pages }
}

describe('a report’s rows page by page', () => {
  it('are the window’s transactions once each, in report order, at every page size', async () => {
    const query: ReportRowQuery = { organizationId: 'testrest', by: 'requestTime', ...WINDOW }
    const transactions = await transactionsOf(t, 'testrest', WINDOW.from, WINDOW.to)
    expect(transactions.length).toBeGreaterThan(40)
    const expected = transactions.map((tx) => [tx.type, ...FIELDS.map((f) => catalogValue(tx, f) ?? null)])
    const whole = await read(query, 100_000)
    expect(whole.rows).toEqual(expected)
    // Sizes that divide the count (the last page then empty) and that do not, and a page of one row.
    for (const size of [1, 7, transactions.length / 2, transactions.length - 1, transactions.length].filter(Number.isInteger)) {
      const paged = await read(query, size)
      expect(paged.rows, `pages of ${size}`).toEqual(expected)
      expect(paged.pages.slice(0, -1).every((n) => n === size), `pages of ${size}: ${paged.pages.join(',')}`).toBe(true)
    }
  })

  it('with a filter on a core column and on a field kept in the JSON, the same rows at every page size', async () => {
    const transactions = await transactionsOf(t, 'testrest', WINDOW.from, WINDOW.to)
    const currency = transactions[0]!.currency
    const cardType = transactions.map((tx) => catalogValue(tx, 'PaymentMethod.CardType')).find((v) => v !== undefined)!
    for (const [field, value] of [['PaymentData.CurrencyCode', currency], ['PaymentMethod.CardType', cardType]] as const) {
      const query: ReportRowQuery = { organizationId: 'testrest', by: 'requestTime', ...WINDOW, filters: { [field]: [value] } }
      const expected = transactions.filter((tx) => catalogValue(tx, field) === value).map((tx) => [tx.type, ...FIELDS.map((f) => catalogValue(tx, f) ?? null)])
      expect(expected.length, field).toBeGreaterThan(5)
      expect((await read(query, 100_000)).rows, field).toEqual(expected)
      for (const size of [1, 3, 10]) expect((await read(query, size)).rows, `${field}, pages of ${size}`).toEqual(expected)
    }
  })

  it('of another organization or an empty window are none', async () => {
    expect((await read({ organizationId: 'no-such-organization', by: 'requestTime', ...WINDOW }, 5)).rows).toEqual([])
    expect((await read({ organizationId: 'testrest', by: 'requestTime', from: '2020-01-01T00:00:00.000Z', to: '2020-01-02T00:00:00.000Z' }, 5)).rows).toEqual([])
  })
})
