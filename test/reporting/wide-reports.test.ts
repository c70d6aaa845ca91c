// Reports as wide as the catalog allows: the reference's own TransactionRequestClass subscription names all 503
// fields, and PostgreSQL's functions take at most 100 arguments, so a report of 100 or more fields once ended in
// ERROR there after five attempts. A one-time report and a subscription's run with all 503 fields (and one of
// exactly 100) must come out whole, field by field, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSACTION_REQUEST_FIELDS } from '../../src/reporting/report-definitions/transaction-request-fields.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { createReport, dayWindow, expectedCsv, get, getRaw, settle, transactionsOf } from '../support/reports.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-03-10T12:00:00Z')) })
})
afterAll(() => t.close())

const ALL = [...TRANSACTION_REQUEST_FIELDS]

/** The status of the report of that name whose window starts at `start`. */
async function statusOf(reportName: string, start: string): Promise<string | undefined> {
  const to = new Date(Date.parse(start) + 9 * 86_400_000).toISOString()
  const res = await get(t, `/reporting/v3/reports?startTime=${start}&endTime=${to}&timeQueryType=reportTimeFrame&reportName=${encodeURIComponent(reportName)}`)
  expect(res.status, res.text).toBe(200)
  const found = (res.json as { reportSearchResults: { status: string; reportStartTime: string }[] }).reportSearchResults
  return found.find((r) => Date.parse(r.reportStartTime) === Date.parse(start))?.status
}

describe('a report with every field of the catalog', () => {
  it('has 503 fields, each a distinct catalog name', () => {
    expect(new Set(ALL).size).toBe(503)
  })

  it.each([
    ['all 503 fields', ALL],
    ['exactly 100 fields', ALL.slice(0, 100)],
    ['99 fields', ALL.slice(0, 99)],
  ])('a one-time report with %s completes, and its CSV is the window’s transactions field by field', async (label, fields) => {
    const { start, end } = dayWindow(t, 2)
    const reportName = `wide ${label}`
    const res = await createReport(t, { reportDefinitionName: 'TransactionRequestClass', reportFields: fields, reportName, timezone: 'GMT', reportStartTime: start, reportEndTime: end, reportMimeType: 'text/csv' })
    expect(res.status, res.text).toBe(201)
    await settle(t)
    expect(await statusOf(reportName, start)).toBe('COMPLETED')
    const file = await getRaw(t, `/reporting/v3/report-downloads?reportName=${encodeURIComponent(reportName)}&reportDate=${start.slice(0, 10)}`)
    expect(file.status).toBe(200)
    const transactions = await transactionsOf(t, 'testrest', start, end)
    expect(transactions.length).toBeGreaterThan(0)
    const csv = file.body.toString('utf8')
    expect(csv.split('\r\n')[0]!.split(',')).toHaveLength(fields.length)
    expect(csv).toBe(expectedCsv(transactions, fields))
  })

  it('a daily subscription with all 503 fields runs, and its report is the day’s transactions field by field', async () => {
    const put = await signedCall(t, {
      method: 'PUT',
      path: '/reporting/v3/report-subscriptions',
      key: TESTREST_KEY,
      body: JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportName: 'wide daily', reportFields: ALL, timezone: 'GMT', reportFrequency: 'DAILY', startTime: '0000', reportMimeType: 'text/csv' }),
    })
    expect(put.status, put.text).toBe(200)
    // A sweep gives the new subscription its first window, from now to the next run.
    await settle(t)
    // The next run is at 00:00 GMT tomorrow; its window is today.
    const runAt = Date.UTC(2026, 2, 11)
    const windowStart = new Date(runAt - 86_400_000).toISOString()
    t.clock.advance(runAt - t.clock.now().getTime() + 1)
    await settle(t, 4)
    expect(await statusOf('wide daily', windowStart)).toBe('COMPLETED')
    const file = await getRaw(t, `/reporting/v3/report-downloads?reportName=wide%20daily&reportDate=${windowStart.slice(0, 10)}`)
    expect(file.status).toBe(200)
    const transactions = await transactionsOf(t, 'testrest', windowStart, new Date(runAt).toISOString())
    expect(transactions.length).toBeGreaterThan(0)
    expect(file.body.toString('utf8')).toBe(expectedCsv(transactions, ALL))
  })
})
