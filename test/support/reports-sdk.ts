// A one-time report through the official SDK, from request to downloaded file, under whatever merchant configuration
// (authentication type) a test gives: ReportsApi createReport (201, then 304), searchReports, getReportByReportId,
// and ReportDownloadsApi downloadReport, whose CSV must be the window's transactions field by field.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { TestApp } from './harness.js'
import { cybersource, sdkCall } from './reporting.js'
import { CSV_FIELDS, dayWindow, expectedCsv, settle, transactionsOf } from './reports.js'

export interface ReportTourOptions {
  /** The SDK's merchant configuration. */
  config: object
  /** The organization the report is for (the configuration's merchant). */
  acting: string
  /** A report name of this tour's own (several tours share one app). */
  reportName: string
  /** A directory the SDK writes its download into. */
  files: string
  /** How many days back the report's one-day window starts. */
  daysBack?: number
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function reportTour(t: TestApp, o: ReportTourOptions): Promise<void> {
  const reportsApi = () => new cybersource.ReportsApi(o.config, new cybersource.ApiClient())
  const { start, end } = dayWindow(t, o.daysBack ?? 2)
  const request = {
    reportDefinitionName: 'TransactionRequestClass',
    reportFields: CSV_FIELDS,
    reportMimeType: 'text/csv',
    reportName: o.reportName,
    timezone: 'GMT',
    reportStartTime: start,
    reportEndTime: end,
    reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' },
  }
  const created = await sdkCall((cb) => reportsApi().createReport(request, {}, cb))
  expect(created.error, 'createReport').toBeNull()
  expect(created.status).toBe(201)
  const again = await sdkCall((cb) => reportsApi().createReport(request, {}, cb))
  expect(again.status, JSON.stringify(again.error).slice(0, 600)).toBe(304)

  const search = () => sdkCall((cb) => reportsApi().searchReports(start, end, 'reportTimeFrame', { reportName: request.reportName }, cb))
  const queued = await search()
  expect(queued.status, 'searchReports').toBe(200)
  expect(queued.data.reportSearchResults).toHaveLength(1)
  expect(queued.data.reportSearchResults[0]).toMatchObject({ status: 'QUEUED', reportFrequency: 'ADHOC', reportDefinitionId: '210', organizationId: o.acting, reportMimeType: 'text/csv', timezone: 'GMT' })

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
  expect(detail.status, 'getReportByReportId').toBe(200)
  expect(detail.data).toMatchObject({ reportId: result.reportId, organizationId: o.acting, reportStatus: 'COMPLETED', reportFields: CSV_FIELDS, reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' }, reportFrequency: 'ADHOC' })

  // The SDK asks for application/xml and writes the file it streams to downloadFilePath + '.xml', whatever it holds.
  const api = new cybersource.ApiClient()
  api.downloadFilePath = join(o.files, o.reportName.replace(/\W+/g, '_'))
  const downloads = new cybersource.ReportDownloadsApi(o.config, api)
  const reportDate = new Date(Date.parse(end) - 1).toISOString().slice(0, 10)
  // Its callback gets the second request's answer (a stream, as the first set responseType for both).
  const status = await new Promise<number>((resolve, reject) =>
    downloads.downloadReport(reportDate, request.reportName, {}, (error: unknown, _data: unknown, response: { status: number }) => (error ? reject(error as Error) : resolve(response.status))),
  )
  expect(status, 'downloadReport').toBe(200)
  const expected = expectedCsv(await transactionsOf(t, o.acting, start, end), CSV_FIELDS)
  expect(expected.split('\r\n').length).toBeGreaterThan(40) // a day of sandbox data: 50 transactions
  const path = api.downloadFilePath as string
  for (let i = 0; i < 100 && !(statSync(path, { throwIfNoEntry: false })?.size === Buffer.byteLength(expected)); i++) await pause(20)
  expect(readFileSync(path, 'utf8')).toBe(expected)
}
