// One-time reports through the official SDK (ReportsApi: createReport, searchReports, getReportByReportId;
// ReportDownloadsApi: downloadReport) against the running server, as testrest with its own key and as
// testrest_two through its account's meta key: the downloaded CSV's rows are the window's transactions, field by
// field; an identical request is 304; the instance goes QUEUED → COMPLETED with its times.
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'
import { CSV_FIELDS, dayWindow, expectedCsv, settle, transactionsOf } from '../support/reports.js'

let t: TestApp
const files = mkdtempSync(join(tmpdir(), 'finapi-sdk-downloads-'))
beforeAll(async () => {
  // The SDK signs with the real time, so the fake clock starts there; the sandbox data ends today.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('ReportsApi and ReportDownloadsApi as %s', (_name, merchantId, key) => {
  const client = () => new cybersource.ApiClient()
  const reportsApi = () => new cybersource.ReportsApi(sdkConfig(t.baseUrl, merchantId, key), client())

  it('creates a one-time report, finds it, reads it, and downloads its CSV: the window’s transactions, field by field', async () => {
    const { start, end } = dayWindow(t, 2)
    const request = {
      reportDefinitionName: 'TransactionRequestClass',
      reportFields: CSV_FIELDS,
      reportMimeType: 'text/csv',
      reportName: `sdk one time ${merchantId}`,
      timezone: 'GMT',
      reportStartTime: start,
      reportEndTime: end,
      reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' },
    }
    const created = await sdkCall((cb) => reportsApi().createReport(request, {}, cb))
    expect(created.error).toBeNull()
    expect(created.status).toBe(201)
    const again = await sdkCall((cb) => reportsApi().createReport(request, {}, cb))
    expect(again.status, JSON.stringify(again.error).slice(0, 600)).toBe(304)

    const search = () => sdkCall((cb) => reportsApi().searchReports(start, end, 'reportTimeFrame', { reportName: request.reportName }, cb))
    const queued = await search()
    expect(queued.status).toBe(200)
    expect(queued.data.reportSearchResults).toHaveLength(1)
    expect(queued.data.reportSearchResults[0]).toMatchObject({ status: 'QUEUED', reportFrequency: 'ADHOC', reportDefinitionId: '210', organizationId: merchantId, reportMimeType: 'text/csv', timezone: 'GMT' })

    await settle(t)
    const found = await search()
    const result = found.data.reportSearchResults[0]
    expect(result).toMatchObject({ status: 'COMPLETED', reportName: request.reportName, subscriptionType: 'CUSTOM' })
    expect(result.reportStartTime.toISOString()).toBe(start)
    expect(result.reportEndTime.toISOString()).toBe(end)
    expect(result.queuedTime).toBeInstanceOf(Date)
    expect(result.reportCompletedTime.getTime()).toBeGreaterThanOrEqual(result.reportGeneratingTime.getTime())
    // The link names the day the window's last instant falls on, and the window's end.
    expect(result._link.reportDownload).toEqual({ method: 'GET', href: expect.stringContaining(`reportDate=${new Date(Date.parse(end) - 1).toISOString().slice(0, 10)}`) })

    const detail = await sdkCall((cb) => reportsApi().getReportByReportId(result.reportId, {}, cb))
    expect(detail.status).toBe(200)
    expect(detail.data).toMatchObject({ reportId: result.reportId, reportStatus: 'COMPLETED', reportFields: CSV_FIELDS, reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' }, reportFrequency: 'ADHOC' })

    // The SDK asks for application/xml and writes the file it streams to downloadFilePath + '.xml', whatever it holds.
    const api = client()
    api.downloadFilePath = join(files, merchantId)
    const downloads = new cybersource.ReportDownloadsApi(sdkConfig(t.baseUrl, merchantId, key), api)
    const reportDate = new Date(Date.parse(end) - 1).toISOString().slice(0, 10)
    // Its callback gets the second request's answer (a stream, as the first set responseType for both).
    const status = await new Promise<number>((resolve, reject) =>
      downloads.downloadReport(reportDate, request.reportName, {}, (error: unknown, _data: unknown, response: { status: number }) => (error ? reject(error as Error) : resolve(response.status))),
    )
    expect(status).toBe(200)
    const expected = expectedCsv(await transactionsOf(t, merchantId, start, end), CSV_FIELDS)
    expect(expected.split('\r\n').length).toBeGreaterThan(40) // a day of sandbox data: 50 transactions
    const path = api.downloadFilePath as string
    for (let i = 0; i < 100 && !(statSync(path, { throwIfNoEntry: false })?.size === Buffer.byteLength(expected)); i++) await pause(20)
    expect(readFileSync(path, 'utf8')).toBe(expected)
  })

  it('answers 404 to a search that finds nothing, and 400 naming the parameter at fault', async () => {
    const none = await sdkCall((cb) => reportsApi().searchReports('2001-01-01T00:00:00.0Z', '2001-01-02T00:00:00.0Z', 'executedTime', {}, cb))
    expect(none.status, none.error?.response?.text).toBe(404)
    const bad = await sdkCall((cb) => reportsApi().searchReports('2001-01-01T00:00:00.0Z', '2001-01-02T00:00:00.0Z', 'whenever', {}, cb))
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.error!.response!.text!)).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'timeQueryType' }] })
  })
})
