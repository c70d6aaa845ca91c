// One-time reports through the official SDK (ReportsApi: createReport, searchReports, getReportByReportId;
// ReportDownloadsApi: downloadReport) against the running server, as testrest with its own key and as
// testrest_two through its account's meta key: the downloaded CSV's rows are the window's transactions, field by
// field; an identical request is 304; the instance goes QUEUED → COMPLETED with its times.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'
import { reportTour } from '../support/reports-sdk.js'

let t: TestApp
const files = mkdtempSync(join(tmpdir(), 'finapi-sdk-downloads-'))
beforeAll(async () => {
  // The SDK signs with the real time, so the fake clock starts there; the sandbox data ends today.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(async () => {
  await t.close()
  rmSync(files, { recursive: true, force: true })
})

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('ReportsApi and ReportDownloadsApi as %s', (_name, merchantId, key) => {
  const reportsApi = () => new cybersource.ReportsApi(sdkConfig(t.baseUrl, merchantId, key), new cybersource.ApiClient())

  it('creates a one-time report, finds it, reads it, and downloads its CSV: the window’s transactions, field by field', async () => {
    await reportTour(t, { config: sdkConfig(t.baseUrl, merchantId, key), acting: merchantId, reportName: `sdk one time ${merchantId}`, files })
  })

  it('answers 404 to a search that finds nothing, and 400 naming the parameter at fault', async () => {
    const none = await sdkCall((cb) => reportsApi().searchReports('2001-01-01T00:00:00.0Z', '2001-01-02T00:00:00.0Z', 'executedTime', {}, cb))
    expect(none.status, none.error?.response?.text).toBe(404)
    const bad = await sdkCall((cb) => reportsApi().searchReports('2001-01-01T00:00:00.0Z', '2001-01-02T00:00:00.0Z', 'whenever', {}, cb))
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.error!.response!.text!)).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'timeQueryType' }] })
  })
})
