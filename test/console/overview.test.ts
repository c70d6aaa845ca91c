// The console's overview through HTTP: the last 30 days of transactions and net funding by day and currency, as SVG
// charts (no script, no inline style) with totals beside them, computed by the on-demand reports the API serves.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { signedCall, TESTREST_KEY } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) })
  // Three in euros and two in yen over two days of testrest's last 30, and one in euros 40 days ago (not shown).
  const at = (iso: string, currency: string, amount: string, i: number): Transaction => ({
    organizationId: 'testrest',
    requestId: `94000000000000000000${i}`,
    type: 'sale',
    requestTime: iso,
    currency,
    amount,
    fields: {},
  })
  await insertTransactions(t.db.kysely, t.db.dialect, [
    at('2026-01-20T10:00:00.000Z', 'EUR', '10.10', 1),
    at('2026-01-20T11:00:00.000Z', 'EUR', '0.20', 2),
    at('2026-01-25T09:00:00.000Z', 'EUR', '5.00', 3),
    at('2026-01-25T09:30:00.000Z', 'JPY', '700', 4),
    at('2026-01-26T09:30:00.000Z', 'JPY', '300', 5),
    at('2025-12-22T09:30:00.000Z', 'EUR', '99.00', 6),
  ])
})
afterAll(() => t.close())

it('charts each currency of the last 30 days, with the same totals as the API’s batch summaries', async () => {
  const b = new ConsoleBrowser(t)
  await b.signIn()
  const res = await b.get('/console/overview')
  expect(res.status).toBe(200)
  expect(res.text).not.toMatch(/<script|style=/)
  expect(res.text).toContain('2026-01-03 to 2026-02-01')
  const api = await signedCall(t, { method: 'GET', path: '/reporting/v3/payment-batch-summaries?startTime=2026-01-03T00:00:00Z&endTime=2026-02-01T12:00:00Z', key: TESTREST_KEY })
  expect(api.status).toBe(200)
  const counts = new Map<string, number>()
  for (const s of api.json.paymentBatchSummaries as { currencyCode: string; salesCount: number; creditCount: number }[]) {
    counts.set(s.currencyCode, (counts.get(s.currencyCode) ?? 0) + s.salesCount + s.creditCount)
  }
  for (const currency of ['EUR', 'JPY']) expect(counts.get(currency), currency).toBeGreaterThan(0)
  const transactions = res.text.slice(res.text.indexOf('Transactions a day'), res.text.indexOf('Net funding a day'))
  for (const [currency, count] of counts) {
    const chart = transactions.slice(transactions.indexOf(`<h3>${currency}</h3>`))
    expect(chart).toMatch(/<svg [^>]*role="img"/)
    expect(chart).toContain(`<dt>Total</dt><dd>${count} transactions</dd>`)
    expect((chart.slice(0, chart.indexOf('</svg>')).match(/<rect /g) ?? []).length).toBe(30)
  }
  expect(res.text).toContain('Net funding a day')
})
