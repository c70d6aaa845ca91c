// Report files, byte for byte: CSV (SOAPI and SCMP names, signed and unsigned amounts, RFC 4180 quoting), XML and
// JSON of a window of known transactions, filters; NO_DATA, the sandbox's magic names and the events every end
// records (also told to onReportFinished in the recording transaction); retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReportFinishedEvent } from '../../src/reporting/reports/generate.js'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { createReport, getRaw, settle } from '../support/reports.js'

let t: TestApp
const finished: ReportFinishedEvent[] = []
const tx = (n: number, type: Transaction['type'], requestTime: string, currency: string, amount: string, fields: Transaction['fields']): Transaction => ({
  organizationId: 'testrest',
  requestId: `900000000000000000000${n}`,
  type,
  requestTime,
  currency,
  amount,
  fields,
})

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')), env: { REPORT_RETENTION_DAYS: '30' }, onReportFinished: async (event) => void finished.push(event) })
  await insertTransactions(t.db.kysely, t.db.dialect, [
    tx(1, 'sale', '2020-03-01T10:00:00.000Z', 'USD', '19.99', { BillTo: { City: 'Paris, "Centre"', Email: 'a@example.com' }, PaymentData: { AuthorizationCode: '131038' }, Application: { Name: 'ics_bill' } }),
    tx(2, 'refund', '2020-03-01T11:00:00.000Z', 'EUR', '5.00', { BillTo: { City: 'Line1\nLine2' }, Application: { Name: 'ics_credit' } }),
    tx(3, 'authorization', '2020-03-01T12:30:00.000Z', 'JPY', '1200', { BillTo: { City: "<Tag> & 'q'", Email: 'c@example.com' }, PaymentData: { AuthorizationCode: 'A1' }, Application: { Name: 'ics_auth' } }),
    tx(4, 'sale', '2020-03-02T00:00:00.000Z', 'USD', '1.00', { Application: { Name: 'ics_bill' } }),
  ])
})
afterAll(() => t.close())

const FIELDS = ['Request.RequestID', 'Request.TransactionDate', 'PaymentData.Amount', 'PaymentData.AuthorizationCode', 'BillTo.City', 'BillTo.Email', 'Application.Name']
const body = (reportName: string, over: Record<string, unknown> = {}) => ({
  reportDefinitionName: 'GatewayTransactionRequestClass',
  reportFields: FIELDS,
  reportName,
  timezone: 'GMT',
  reportStartTime: '2020-03-01T00:00:00Z',
  reportEndTime: '2020-03-02T00:00:00Z',
  ...over,
})
const download = async (reportName: string, reportDate = '2020-03-01', headers: Record<string, string> = {}) =>
  getRaw(t, `/reporting/v3/report-downloads?reportName=${encodeURIComponent(reportName)}&reportDate=${reportDate}`, headers)

const CSV =
  'Request.RequestID,Request.TransactionDate,PaymentData.Amount,PaymentData.AuthorizationCode,BillTo.City,BillTo.Email,Application.Name\r\n' +
  '9000000000000000000001,2020-03-01T10:00:00.000Z,19.99,131038,"Paris, ""Centre""",a@example.com,ics_bill\r\n' +
  '9000000000000000000002,2020-03-01T11:00:00.000Z,-5.00,,"Line1\nLine2",,ics_credit\r\n' +
  "9000000000000000000003,2020-03-01T12:30:00.000Z,1200,A1,<Tag> & 'q',c@example.com,ics_auth\r\n"

describe('report files', () => {
  beforeAll(async () => {
    for (const b of [
      body('files csv'),
      body('files scmp', { reportPreferences: { signedAmounts: false, fieldNameConvention: 'SCMP' } }),
      body('files xml', { reportMimeType: 'application/xml', timezone: 'America/New_York' }),
      body('files json', { reportMimeType: 'application/json' }),
      body('files filtered', { reportFilters: { 'Application.Name': ['ics_credit', 'ics_bill'] } }),
      body('files empty', { reportStartTime: '2019-01-01T00:00:00Z', reportEndTime: '2019-01-02T00:00:00Z' }),
      body('magic NO_DATA'),
      body('magic ERROR'),
    ]) {
      const res = await createReport(t, b)
      expect(res.status, res.text).toBe(201)
    }
    await settle(t)
  })

  it('CSV with the catalog names: RFC 4180 quoting, CRLF, signed amounts, an empty cell for a missing value, the window only', async () => {
    const res = await download('files csv')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toBe('attachment; filename="files csv.csv"')
    expect(res.body.toString('utf8')).toBe(CSV)
  })

  it('CSV with SCMP names and unsigned amounts', async () => {
    const res = await download('files scmp')
    expect(res.body.toString('utf8').split('\r\n').slice(0, 3)).toEqual([
      'request_id,transaction_date,amount,auth_auth_code,bill_city,customer_email,ics_applications',
      '9000000000000000000001,2020-03-01T10:00:00.000Z,19.99,131038,"Paris, ""Centre""",a@example.com,ics_bill',
      '9000000000000000000002,2020-03-01T11:00:00.000Z,5.00,,"Line1\nLine2",,ics_credit',
    ])
  })

  it("XML: one Record per row, the window in the report's zone, escaped text, absent values left out", async () => {
    // In New York time the window ends at 19:00 on 1 March: that is its date.
    const res = await download('files xml')
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    const el = (name: string, value: string) => `<${name}>${value}</${name}>`
    const record = (values: [string, string][]) => `<Record>${values.map(([n, v]) => el(n, v)).join('')}</Record>\n`
    expect(res.body.toString('utf8')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<Report reportName="files xml" reportDefinitionName="GatewayTransactionRequestClass" organizationId="testrest" reportStartTime="2020-02-29T19:00:00-05:00" reportEndTime="2020-03-01T19:00:00-05:00" timezone="America/New_York">\n' +
        record([['Request.RequestID', '9000000000000000000001'], ['Request.TransactionDate', '2020-03-01T10:00:00.000Z'], ['PaymentData.Amount', '19.99'], ['PaymentData.AuthorizationCode', '131038'], ['BillTo.City', 'Paris, &quot;Centre&quot;'], ['BillTo.Email', 'a@example.com'], ['Application.Name', 'ics_bill']]) +
        record([['Request.RequestID', '9000000000000000000002'], ['Request.TransactionDate', '2020-03-01T11:00:00.000Z'], ['PaymentData.Amount', '-5.00'], ['BillTo.City', 'Line1\nLine2'], ['Application.Name', 'ics_credit']]) +
        record([['Request.RequestID', '9000000000000000000003'], ['Request.TransactionDate', '2020-03-01T12:30:00.000Z'], ['PaymentData.Amount', '1200'], ['PaymentData.AuthorizationCode', 'A1'], ['BillTo.City', '&lt;Tag&gt; &amp; &apos;q&apos;'], ['BillTo.Email', 'c@example.com'], ['Application.Name', 'ics_auth']]) +
        '</Report>\n',
    )
  })

  it('JSON (an extension): the heading, then one object per row with null for a missing value', async () => {
    const res = await download('files json')
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const text = res.body.toString('utf8')
    expect(text.startsWith('{"organizationId":"testrest","reportName":"files json","reportDefinitionName":"GatewayTransactionRequestClass","reportStartTime":"2020-03-01T00:00:00+00:00","reportEndTime":"2020-03-02T00:00:00+00:00","timezone":"GMT","reportFields":[')).toBe(true)
    const json = JSON.parse(text)
    expect(json.records).toEqual([
      { 'Request.RequestID': '9000000000000000000001', 'Request.TransactionDate': '2020-03-01T10:00:00.000Z', 'PaymentData.Amount': '19.99', 'PaymentData.AuthorizationCode': '131038', 'BillTo.City': 'Paris, "Centre"', 'BillTo.Email': 'a@example.com', 'Application.Name': 'ics_bill' },
      { 'Request.RequestID': '9000000000000000000002', 'Request.TransactionDate': '2020-03-01T11:00:00.000Z', 'PaymentData.Amount': '-5.00', 'PaymentData.AuthorizationCode': null, 'BillTo.City': 'Line1\nLine2', 'BillTo.Email': null, 'Application.Name': 'ics_credit' },
      { 'Request.RequestID': '9000000000000000000003', 'Request.TransactionDate': '2020-03-01T12:30:00.000Z', 'PaymentData.Amount': '1200', 'PaymentData.AuthorizationCode': 'A1', 'BillTo.City': "<Tag> & 'q'", 'BillTo.Email': 'c@example.com', 'Application.Name': 'ics_auth' },
    ])
  })

  it('keeps only the rows whose filtered field has one of the values', async () => {
    const lines = (await download('files filtered')).body.toString('utf8').split('\r\n')
    expect(lines.slice(1, 3).map((l) => l.split(',')[0])).toEqual(['9000000000000000000001', '9000000000000000000002'])
    expect(lines).toHaveLength(4) // header, two rows (one with a quoted newline is one record), and the final empty piece
  })

  it('a window without transactions ends NO_DATA, with no file; the magic names end NO_DATA and ERROR whatever the data', async () => {
    const results = await signedCall(t, { method: 'GET', path: '/reporting/v3/reports?startTime=2019-01-01T00:00:00Z&endTime=2020-12-31T00:00:00Z&timeQueryType=reportTimeFrame', key: TESTREST_KEY })
    const status = Object.fromEntries(results.json.reportSearchResults.map((r: { reportName: string; status: string }) => [r.reportName, r.status]))
    expect(status).toMatchObject({ 'files csv': 'COMPLETED', 'files empty': 'NO_DATA', 'magic NO_DATA': 'NO_DATA', 'magic ERROR': 'ERROR' })
    for (const r of results.json.reportSearchResults) expect('_link' in r, r.reportName).toBe(r.status === 'COMPLETED')
    const empty = await download('files empty', '2019-01-01')
    expect(empty.status).toBe(404)
    expect(JSON.parse(empty.body.toString())).toMatchObject({ reason: 'NOT_FOUND', details: [{ field: 'reportName', reason: 'the report is NO_DATA: no transactions in its window' }] })
    expect((await download('magic ERROR')).status).toBe(404)
  })

  it('records one event per ended report, in report_events and through onReportFinished', async () => {
    const events = await t.db.kysely.selectFrom('report_events').selectAll().execute()
    expect(events).toHaveLength(8)
    expect(events.map((e) => e.event_type).sort()).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'ERROR', 'NO_DATA', 'NO_DATA'])
    expect(finished.map((e) => e.eventId).sort()).toEqual(events.map((e) => e.id).sort())
    const csv = finished.find((e) => e.report.reportName === 'files csv')!
    expect(csv).toMatchObject({ type: 'COMPLETED', organizationId: 'testrest', run: 1, report: { status: 'COMPLETED', reportId: csv.reportId, _link: { reportDownload: { method: 'GET' } } } })
  })

  it('removes finished reports and their files after REPORT_RETENTION_DAYS', async () => {
    const before = await download('files csv')
    expect(before.status).toBe(200)
    t.clock.advance(31 * 86_400_000)
    const counts = await t.app.services.housekeeping.runOnce()
    expect(counts['reports past REPORT_RETENTION_DAYS']).toBe(8)
    expect((await download('files csv')).status).toBe(404)
    const keys = await t.db.kysely.selectFrom('report_instances').select('id').execute()
    expect(keys).toEqual([])
  })
})
