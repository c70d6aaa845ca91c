// Every validated member of the subscription PUTs: 400 in the reference's Error Bean naming each field at fault
// (all of them at once), nothing stored; the GET/DELETE errors in the family's usual body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')) })
})
afterAll(() => t.close())

const valid = { reportDefinitionName: 'PayerAuthDetailClass', reportName: 'nightly', reportFields: ['VERes.Enrolled', 'VEReq.Pan'], timezone: 'GMT' }
const put = (b: unknown, path = '/reporting/v3/report-subscriptions') => signedCall(t, { method: 'PUT', path, body: typeof b === 'string' ? b : JSON.stringify(b), key: TESTREST_KEY })
const stored = async () => (await signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions', key: TESTREST_KEY })).json.subscriptions.length as number

const CASES: [string, Record<string, unknown>, string][] = [
  ['unknown definition', { reportDefinitionName: 'NoSuchClass' }, 'reportDefinitionName'],
  ["the sample's TransactionDetailClass", { reportDefinitionName: 'TransactionDetailClass' }, 'reportDefinitionName'],
  ['empty reportFields', { reportFields: [] }, 'reportFields'],
  ['a field of another definition', { reportFields: ['VERes.Enrolled', 'Fee.DiscountRate'] }, 'reportFields[1]'],
  ['a duplicated field', { reportFields: ['VERes.Enrolled', 'VERes.Enrolled'] }, 'reportFields[1]'],
  ['reportFields not an array', { reportFields: 'VERes.Enrolled' }, 'reportFields'],
  ['reportMimeType', { reportMimeType: 'application/pdf' }, 'reportMimeType'],
  ['reportFrequency', { reportFrequency: 'HOURLY' }, 'reportFrequency'],
  ['ADHOC frequency', { reportFrequency: 'ADHOC' }, 'reportFrequency'],
  ['USER_DEFINED without interval', { reportFrequency: 'USER_DEFINED' }, 'reportInterval'],
  ['a bad interval', { reportFrequency: 'USER_DEFINED', reportInterval: 'PT24H' }, 'reportInterval'],
  ['an interval with DAILY', { reportInterval: 'PT2H' }, 'reportInterval'],
  ['an interval under the shortest allowed (PT5M)', { reportFrequency: 'USER_DEFINED', reportInterval: 'PT4M' }, 'reportInterval'],
  ['no time zone', { timezone: undefined }, 'timezone'],
  ['an unsupported timezone', { timezone: 'Mars/Olympus' }, 'timezone'],
  ['an unsupported timeZone', { timezone: undefined, timeZone: 'Europe/Kyiv' }, 'timeZone'],
  ['timezone and timeZone disagreeing', { timeZone: 'Europe/Paris' }, 'timeZone'],
  ['startTime 2400', { startTime: '2400' }, 'startTime'],
  ['startTime 9:00', { startTime: '9:00' }, 'startTime'],
  ['startDay 8 for WEEKLY', { reportFrequency: 'WEEKLY', startDay: 8 }, 'startDay'],
  ['startDay 32 for MONTHLY', { reportFrequency: 'Monthly', startDay: 32 }, 'startDay'],
  ['startDay 0', { reportFrequency: 'MONTHLY', startDay: 0 }, 'startDay'],
  ['a filter that is no filter', { reportFilters: { 'VERes.Enrolled': ['Y'] } }, 'reportFilters.VERes.Enrolled'],
  ['reportFilters as a list', { reportFilters: ['Application.Name'] }, 'reportFilters'],
  ['signedAmounts not boolean', { reportPreferences: { signedAmounts: 'yes' } }, 'reportPreferences.signedAmounts'],
  ['fieldNameConvention', { reportMimeType: 'text/csv', reportPreferences: { fieldNameConvention: 'JSON' } }, 'reportPreferences.fieldNameConvention'],
  ['fieldNameConvention with xml', { reportMimeType: 'application/xml', reportPreferences: { fieldNameConvention: 'SCMP' } }, 'reportPreferences.fieldNameConvention'],
  ['reportName charset', { reportName: 'no/slash' }, 'reportName'],
  ['reportName length', { reportName: 'x'.repeat(81) }, 'reportName'],
  ['missing reportName', { reportName: undefined }, 'reportName'],
  ['organizationId shape', { organizationId: 'has space' }, 'organizationId'],
]

describe('PUT /report-subscriptions refuses', () => {
  it.each(CASES)('%s', async (_name, change, field) => {
    const res = await put({ ...valid, ...change })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Field validation error', localizationKey: 'cybsapi.validation.errors' })
    expect(res.json.fields.map((f: { path: string }) => f.path)).toContain(field)
    expect(await stored()).toBe(0)
  })

  it('names every problem at once', async () => {
    const res = await put({ ...valid, reportDefinitionName: 'PayerAuthDetailClass', reportFields: ['Nope.Nope'], reportFrequency: 'WEEKLY', startDay: 9, timezone: 'Nowhere', startTime: '2500' })
    expect(res.json.fields.map((f: { path: string }) => f.path).sort()).toEqual(['reportFields[0]', 'startDay', 'startTime', 'timezone'])
    expect(res.json.detail).toContain('startTime:')
  })

  it('answers malformed JSON and a bad organizationId query in the same Error Bean', async () => {
    expect((await put('{"reportName":')).json.code).toBe('VALIDATION_ERROR')
    const res = await put(valid, '/reporting/v3/report-subscriptions?organizationId=bad%20id')
    expect(res.status).toBe(400)
    expect(res.json.fields[0].path).toBe('querystring.organizationId')
  })

  it('answers 200 with no body, and refuses to turn a predefined name into a custom one', async () => {
    const ok = await put(valid)
    expect(ok.status).toBe(200)
    expect(ok.text).toBe('')
    await put({ reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC', reportName: 'classic one' }, '/reporting/v3/predefined-report-subscriptions')
    const res = await put({ ...valid, reportName: 'classic one' })
    expect(res.status).toBe(400)
    expect(res.json.fields[0]).toMatchObject({ path: 'reportName' })
    await signedCall(t, { method: 'DELETE', path: '/reporting/v3/report-subscriptions/nightly', key: TESTREST_KEY })
    await signedCall(t, { method: 'DELETE', path: '/reporting/v3/report-subscriptions/classic%20one', key: TESTREST_KEY })
  })
})

describe('the per-organization limits (REPORT_MIN_INTERVAL_MINUTES, REPORT_MAX_SUBSCRIPTIONS_PER_ORG)', () => {
  const other = (b: unknown, path = '/reporting/v3/report-subscriptions') => signedCall(t, { method: 'PUT', path, body: JSON.stringify(b), key: OTHER_KEY })
  const remove = (name: string) => signedCall(t, { method: 'DELETE', path: `/reporting/v3/report-subscriptions/${encodeURIComponent(name)}`, key: OTHER_KEY })

  it('refuse an interval shorter than PT5M, naming the limit; PT5M itself is allowed', async () => {
    for (const reportInterval of ['PT1M', 'PT4M']) {
      const res = await other({ ...valid, reportName: 'too often', reportFrequency: 'USER_DEFINED', reportInterval })
      expect(res.status).toBe(400)
      expect(res.json.fields).toEqual([{ path: 'reportInterval', message: 'must be at least PT5M, the shortest interval between reports allowed', localizationKey: 'cybsapi.validation.field.invalid' }])
    }
    expect((await other({ ...valid, reportName: 'every 5 minutes', reportFrequency: 'USER_DEFINED', reportInterval: 'PT5M' })).status).toBe(200)
    expect((await remove('every 5 minutes')).status).toBe(200)
  })

  it('refuse a 101st subscription of an organization, naming the limit; changing one still works, and deleting one makes room', async () => {
    for (let n = 1; n <= 100; n++) expect((await other({ ...valid, reportName: `limit ${n}` })).status).toBe(200)
    const refusal = { path: 'reportName', message: 'the organization has 100 subscriptions, the most allowed; delete one to add another', localizationKey: 'cybsapi.validation.field.invalid' }
    const extra = await other({ ...valid, reportName: 'one too many' })
    expect(extra.status).toBe(400)
    expect(extra.json).toMatchObject({ code: 'VALIDATION_ERROR', fields: [refusal] })
    const predefined = await other({ reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC', reportName: 'classic extra' }, '/reporting/v3/predefined-report-subscriptions')
    expect(predefined.status).toBe(400)
    expect(predefined.json.fields).toEqual([refusal])
    // Another organization is not concerned.
    expect((await put({ ...valid, reportName: 'mine' })).status).toBe(200)
    // A client that sends Content-Type: application/json on every call, a DELETE's empty body included.
    const path = '/reporting/v3/report-subscriptions/mine'
    const deleted = await t.call('DELETE', path, { headers: { ...signedHeaders({ method: 'DELETE', path, key: TESTREST_KEY, date: t.clock.now() }), 'content-type': 'application/json' } })
    expect(deleted.status, deleted.text).toBe(200)

    expect((await other({ ...valid, reportName: 'limit 7', startTime: '0700' })).status).toBe(200)
    expect((await remove('limit 1')).status).toBe(200)
    // The same signed request again would be a replay (refused 401): a client signs its new attempt anew.
    t.clock.advance(1000)
    expect((await other({ ...valid, reportName: 'one too many' })).status).toBe(200)
    for (let n = 2; n <= 100; n++) await remove(`limit ${n}`)
    await remove('one too many')
  })
})

describe('PUT /predefined-report-subscriptions refuses', () => {
  const predefined = { reportDefinitionName: 'FundingDetailClass', subscriptionType: 'STANDARD' }
  it.each([
    ['subscriptionType', { subscriptionType: 'CUSTOM' }, 'subscriptionType'],
    ['an unknown definition', { reportDefinitionName: 'TransactionDetailClass' }, 'reportDefinitionName'],
    ['CLASSIC weekly', { subscriptionType: 'CLASSIC', reportFrequency: 'WEEKLY' }, 'reportFrequency'],
    ['STANDARD outside Pacific time', { timezone: 'Europe/Paris' }, 'timezone'],
    ['subscriptionStatus', { subscriptionStatus: 'PAUSED' }, 'subscriptionStatus'],
    ['startTime', { startTime: '1260' }, 'startTime'],
    ['reportMimeType', { reportMimeType: 'text/html' }, 'reportMimeType'],
  ] as [string, Record<string, unknown>, string][])('%s', async (_name, change, field) => {
    const res = await put({ ...predefined, ...change }, '/reporting/v3/predefined-report-subscriptions')
    expect(res.status).toBe(400)
    expect(res.json.code).toBe('VALIDATION_ERROR')
    expect(res.json.fields.map((f: { path: string }) => f.path)).toContain(field)
    expect(await stored()).toBe(0)
  })
})

describe('GET and DELETE by name', () => {
  it('answer 400 INVALID_DATA for a name outside the path pattern, 404 for an unknown one', async () => {
    for (const method of ['GET', 'DELETE']) {
      const bad = await signedCall(t, { method, path: '/reporting/v3/report-subscriptions/a%2Fb', key: TESTREST_KEY })
      expect(bad.status, method).toBe(400)
      expect(bad.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'params.reportName' }] })
      const unknown = await signedCall(t, { method, path: '/reporting/v3/report-subscriptions/none', key: TESTREST_KEY })
      expect(unknown.status, method).toBe(404)
      expect(unknown.json).toMatchObject({ reason: 'NOT_FOUND', message: 'Not found' })
    }
  })
})
