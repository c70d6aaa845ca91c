// Bad input to the report routes answers 400 in the reporting body naming the field at fault, with nothing stored;
// search narrows by each of its parameters; and tenancy: another merchant's report answers exactly as an unknown
// one, to search, details and download alike, its id guessed or not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, signedCall } from '../support/reporting.js'
import { createReport, get, settle } from '../support/reports.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
})
afterAll(() => t.close())

const valid = {
  reportDefinitionName: 'TransactionRequestClass',
  reportFields: ['Request.RequestID', 'BillTo.Email'],
  reportName: 'errors base',
  timezone: 'America/Chicago',
  reportStartTime: '2026-01-10T00:00:00-06:00',
  reportEndTime: '2026-01-11T00:00:00-06:00',
}
const count = async () => Number((await t.db.kysely.selectFrom('report_instances').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
const searchPath = (query: string) => `/reporting/v3/reports?${query}`
const detailsOf = (res: { json: { details: { field?: string }[] } }) => res.json.details.map((d) => d.field)

describe('POST /reports: 400 naming the field, nothing stored', () => {
  it.each([
    ['a reversed window', { reportStartTime: '2026-01-11T00:00:00Z', reportEndTime: '2026-01-10T00:00:00Z' }, 'reportEndTime'],
    ['an empty window', { reportEndTime: '2026-01-10T00:00:00-06:00' }, 'reportEndTime'],
    ['a window over 31 days', { reportStartTime: '2025-12-01T00:00:00Z', reportEndTime: '2026-01-01T00:00:01Z' }, 'reportEndTime'],
    ['an unknown definition', { reportDefinitionName: 'TransactionDetailClass' }, 'reportDefinitionName'],
    ['an unknown field', { reportFields: ['Request.RequestID', 'BillTo.Nickname'] }, 'reportFields[1]'],
    ['a field twice', { reportFields: ['Request.RequestID', 'Request.RequestID'] }, 'reportFields[1]'],
    ['no fields', { reportFields: [] }, 'reportFields'],
    ['an unknown format', { reportMimeType: 'application/pdf' }, 'reportMimeType'],
    ['an unknown zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['two zones that disagree', { timeZone: 'GMT' }, 'timeZone'],
    ['a scheduled frequency', { reportFrequency: 'DAILY' }, 'reportFrequency'],
    ['a start that is no date-time', { reportStartTime: 'yesterday' }, 'reportStartTime'],
    ['an end on 30 February', { reportEndTime: '2026-02-30T00:00:00Z' }, 'reportEndTime'],
    ['SCMP names for XML', { reportMimeType: 'application/xml', reportPreferences: { fieldNameConvention: 'SCMP' } }, 'reportPreferences.fieldNameConvention'],
    ['an unknown convention', { reportPreferences: { fieldNameConvention: 'CSV' } }, 'reportPreferences.fieldNameConvention'],
    ['signedAmounts that is no boolean', { reportPreferences: { signedAmounts: 'maybe' } }, 'reportPreferences.signedAmounts'],
    ['a field that cannot filter', { reportFilters: { 'BillTo.Email': ['x'] } }, 'reportFilters.BillTo.Email'],
    ['an unknown filter value', { reportFilters: { 'Application.Name': ['ics_teleport'] } }, 'reportFilters.Application.Name'],
    ['a name with a slash', { reportName: 'a/b' }, 'reportName'],
    ['no name', { reportName: undefined }, 'reportName'],
    ['no end', { reportEndTime: undefined }, 'reportEndTime'],
  ])('%s', async (_what, change, field) => {
    const before = await count()
    const res = await createReport(t, { ...valid, ...change })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ submitTimeUtc: expect.any(String), reason: 'INVALID_DATA', message: 'One or more fields contains invalid data' })
    expect(detailsOf(res)).toContain(field)
    expect(await count()).toBe(before)
  })

  it('lists every problem at once', async () => {
    const res = await createReport(t, { ...valid, reportDefinitionName: 'Nope', timezone: 'Nowhere', reportEndTime: 'soon' })
    expect(detailsOf(res)).toEqual(['reportDefinitionName', 'timezone', 'reportEndTime'])
  })

  it('accepts a 31-day window, local times without an offset (in the report zone), and frequency Adhoc', async () => {
    expect((await createReport(t, { ...valid, reportName: 'month', reportStartTime: '2025-12-01T00:00:00Z', reportEndTime: '2026-01-01T00:00:00Z' })).status).toBe(201)
    const local = await createReport(t, { ...valid, reportName: 'local', reportStartTime: '2026-01-10T00:00:00', reportEndTime: '2026-01-11T00:00:00', reportFrequency: 'Adhoc' })
    expect(local.status).toBe(201)
    const detail = await get(t, local.headers['location'] as string)
    expect(detail.json).toMatchObject({ reportStartTime: '2026-01-10T00:00:00-06:00', reportEndTime: '2026-01-11T00:00:00-06:00', reportFrequency: 'ADHOC', timezone: 'America/Chicago' })
    // The same request again is 304, and a change of any member a new report.
    expect((await createReport(t, { ...valid, reportName: 'local', reportStartTime: '2026-01-10T06:00:00Z', reportEndTime: '2026-01-11T06:00:00Z' })).status).toBe(304)
    expect((await createReport(t, { ...valid, reportName: 'local', reportStartTime: '2026-01-10T06:00:00Z', reportEndTime: '2026-01-11T06:00:00Z', reportMimeType: 'application/xml' })).status).toBe(201)
  })
})

describe('GET /reports', () => {
  beforeAll(async () => {
    const base = { ...valid, timezone: 'GMT', reportStartTime: '2026-01-05T00:00:00Z', reportEndTime: '2026-01-06T00:00:00Z' }
    expect((await createReport(t, { ...base, reportName: 'search csv' })).status).toBe(201)
    expect((await createReport(t, { ...base, reportName: 'search xml', reportMimeType: 'application/xml' })).status).toBe(201)
    expect((await createReport(t, { ...base, reportName: 'search payer', reportDefinitionName: 'PayerAuthDetailClass', reportFields: ['VERes.Enrolled'] })).status).toBe(201)
    expect((await createReport(t, { ...base, reportName: 'search future', reportStartTime: '2026-02-01T00:00:00Z', reportEndTime: '2026-02-03T00:00:00Z' })).status).toBe(201)
    await settle(t)
  })
  const names = async (query: string) => {
    const res = await get(t, searchPath(`startTime=2026-01-05T00:00:00Z&endTime=2026-02-05T00:00:00Z&timeQueryType=reportTimeFrame&${query}`))
    return res.status === 404 ? 404 : (res.json.reportSearchResults as { reportName: string }[]).map((r) => r.reportName).filter((n) => n.startsWith('search')).sort()
  }

  it('narrows by each filter of the paths file', async () => {
    expect(await names('reportName=search+csv')).toEqual(['search csv'])
    expect(await names('reportMimeType=application%2Fxml')).toEqual(['search xml'])
    expect(await names('reportDefinitionId=221')).toEqual(['search payer'])
    expect(await names('reportFrequency=Adhoc&reportStatus=PENDING')).toEqual(['search future'])
    expect(await names('reportStatus=COMPLETED')).toEqual(['search csv', 'search payer', 'search xml'])
    expect(await names('reportFrequency=DAILY')).toBe(404)
    expect(await names('reportDefinitionId=999')).toBe(404)
  })

  it('by executedTime: when reports were queued, not their window', async () => {
    const queuedToday = await get(t, searchPath('startTime=2026-02-01T00:00:00Z&endTime=2026-02-01T01:00:00Z&timeQueryType=executedTime&reportName=search+csv'))
    expect(queuedToday.json.reportSearchResults).toHaveLength(1)
    expect((await get(t, searchPath('startTime=2026-01-05T00:00:00Z&endTime=2026-01-06T00:00:00Z&timeQueryType=executedTime&reportName=search+csv'))).status).toBe(404)
  })

  it.each([
    ['no startTime', 'endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime', 'querystring.startTime'],
    ['a startTime that is no date-time', 'startTime=today&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime', 'startTime'],
    ['an end before the start', 'startTime=2026-01-02T00:00:00Z&endTime=2026-01-01T00:00:00Z&timeQueryType=executedTime', 'endTime'],
    ['an unknown timeQueryType', 'startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=createdTime', 'timeQueryType'],
    ['an unknown status', 'startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime&reportStatus=DONE', 'reportStatus'],
    ['an unknown frequency', 'startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime&reportFrequency=HOURLY', 'reportFrequency'],
    ['an unknown format', 'startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime&reportMimeType=text%2Fplain', 'reportMimeType'],
    ['a definition id that is no number', 'startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime&reportDefinitionId=abc', 'querystring.reportDefinitionId'],
  ])('answers 400 for %s', async (_what, query, field) => {
    const res = await get(t, searchPath(query))
    expect(res.status).toBe(400)
    expect(detailsOf(res)).toContain(field)
  })
})

describe('GET /reports/{reportId} and /report-downloads: bad input', () => {
  it.each([
    ['/reporting/v3/reports/not-a-uuid', 'params.reportId'],
    ['/reporting/v3/report-downloads?reportName=x&reportDate=2026-13-01', 'reportDate'],
    ['/reporting/v3/report-downloads?reportName=x&reportDate=2026-02-30', 'reportDate'],
    ['/reporting/v3/report-downloads?reportName=x&reportDate=March', 'querystring.reportDate'],
    ['/reporting/v3/report-downloads?reportDate=2026-01-01', 'querystring.reportName'],
    ['/reporting/v3/report-downloads?reportName=x&reportDate=2026-01-01&reportTime=noon', 'querystring.reportTime'],
  ])('%s answers 400 naming %s', async (path, field) => {
    const res = await get(t, path)
    expect(res.status).toBe(400)
    expect(detailsOf(res)).toContain(field)
  })
})

describe('tenancy', () => {
  let theirs: string
  beforeAll(async () => {
    const res = await createReport(t, { ...valid, reportName: 'their secret', timezone: 'GMT', reportStartTime: '2026-01-20T00:00:00Z', reportEndTime: '2026-01-21T00:00:00Z' }, OTHER_KEY)
    theirs = (res.headers['location'] as string).split('/').pop()!
    await settle(t)
    expect((await get(t, `/reporting/v3/reports/${theirs}`, OTHER_KEY)).json.reportStatus).toBe('COMPLETED')
  })
  const same = (a: { status: number; json: object }, b: { status: number; json: object }) => {
    expect(a.status).toBe(404)
    expect({ ...a.json, submitTimeUtc: 0 }).toEqual({ ...b.json, submitTimeUtc: 0 })
  }

  it("answers another merchant's report id exactly as an unknown one, for its own key and its account's", async () => {
    const unknown = await get(t, '/reporting/v3/reports/00000000-0000-4000-8000-000000000000')
    same(await get(t, `/reporting/v3/reports/${theirs}`), unknown)
    same(await get(t, `/reporting/v3/reports/${theirs.toUpperCase()}`), unknown)
    same(await get(t, `/reporting/v3/reports/${theirs}`, ACCT_KEY), unknown)
    same(await get(t, `/reporting/v3/reports/${theirs}?organizationId=othermerchant`), await get(t, '/reporting/v3/reports/00000000-0000-4000-8000-000000000000?organizationId=nosuchorg'))
  })

  it('never lists or downloads it', async () => {
    const path = '/reporting/v3/reports?startTime=2026-01-20T00:00:00Z&endTime=2026-01-21T00:00:00Z&timeQueryType=reportTimeFrame'
    expect((await get(t, path)).status).toBe(404)
    expect((await get(t, path, OTHER_KEY)).json.reportSearchResults).toHaveLength(1)
    same(await get(t, '/reporting/v3/report-downloads?reportName=their+secret&reportDate=2026-01-20'), await get(t, '/reporting/v3/report-downloads?reportName=nobody+s&reportDate=2026-01-20'))
    expect((await get(t, '/reporting/v3/report-downloads?reportName=their+secret&reportDate=2026-01-20', OTHER_KEY)).status).toBe(200)
  })

  it("lets an account act for its merchant, and names the merchant in the download link it gives", async () => {
    const mine = await createReport(t, { ...valid, reportName: 'acct made', timezone: 'GMT', organizationId: 'testrest', reportStartTime: '2026-01-22T00:00:00Z', reportEndTime: '2026-01-23T00:00:00Z' }, ACCT_KEY)
    expect(mine.status).toBe(201)
    await settle(t)
    const id = (mine.headers['location'] as string).split('/').pop()!
    expect((await get(t, `/reporting/v3/reports/${id}`)).json.organizationId).toBe('testrest')
    const found = await get(t, '/reporting/v3/reports?startTime=2026-01-22T00:00:00Z&endTime=2026-01-23T00:00:00Z&timeQueryType=reportTimeFrame&organizationId=testrest', ACCT_KEY)
    const href = found.json.reportSearchResults[0]._link.reportDownload.href as string
    expect(href).toContain('organizationId=testrest')
    expect((await get(t, href, ACCT_KEY)).status).toBe(200)
    expect((await signedCall(t, { method: 'GET', path: `/reporting/v3/reports/${id}`, key: ACCT_KEY, merchantId: 'testrest_two' })).status).toBe(404)
  })
})
