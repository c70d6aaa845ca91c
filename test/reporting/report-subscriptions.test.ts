// Report subscriptions through the official SDK (ReportSubscriptionsApi) against the running server, as testrest
// with its own key and as testrest_two with testrest_acct's meta key: create, get, list, update, 304, delete,
// predefined; and tenancy: another organization's name answers exactly as an unknown one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig, signedCall } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

const body = (over: Record<string, unknown> = {}) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportFields: ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'BillTo.Email'],
  reportMimeType: 'application/xml',
  reportFrequency: 'WEEKLY',
  reportName: 'testrest subscription v1',
  timezone: 'America/Chicago',
  startTime: '0900',
  startDay: 2,
  ...over,
})

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('ReportSubscriptionsApi as %s', (_name, merchantId, key) => {
  const api = () => new cybersource.ReportSubscriptionsApi(sdkConfig(t.baseUrl, merchantId, key), new cybersource.ApiClient())
  const create = (b: Record<string, unknown>) => sdkCall((cb) => api().createSubscription(b, {}, cb))

  it('creates, reads, lists, updates, answers 304 when unchanged, and deletes', async () => {
    const created = await create(body())
    expect(created.error).toBeNull()
    expect(created.status).toBe(200)

    const got = await sdkCall((cb) => api().getSubscription('testrest subscription v1', {}, cb))
    expect(got.status).toBe(200)
    expect(got.data).toMatchObject({ organizationId: merchantId, reportDefinitionId: '210', reportDefinitionName: 'TransactionRequestClass', reportMimeType: 'application/xml', reportFrequency: 'WEEKLY', timezone: 'America/Chicago', startDay: 2, reportName: 'testrest subscription v1' })
    expect(got.data.reportFields).toEqual(body().reportFields)
    expect(got.data.startTime).toBeInstanceOf(Date)
    // 09:00 in Chicago: 15:00 UTC in winter, 14:00 in summer.
    expect([14, 15]).toContain((got.data.startTime as Date).getUTCHours())

    const same = await create(body({ reportFrequency: 'Weekly', timezone: undefined, timeZone: 'America/Chicago' }))
    expect(same.status).toBe(304)

    const changed = await create(body({ reportMimeType: 'text/csv', reportPreferences: { signedAmounts: false, fieldNameConvention: 'Simple Order API' } }))
    expect(changed.status).toBe(200)
    const list = await sdkCall((cb) => api().getAllSubscriptions({ organizationId: merchantId }, cb))
    expect(list.status).toBe(200)
    const mine = list.data.subscriptions.find((s: { reportName: string }) => s.reportName === 'testrest subscription v1')
    expect(mine).toMatchObject({ reportMimeType: 'text/csv', reportPreferences: { signedAmounts: false, fieldNameConvention: 'SOAPI' } })

    expect((await sdkCall((cb) => api().deleteSubscription('testrest subscription v1', {}, cb))).status).toBe(200)
    expect((await sdkCall((cb) => api().getSubscription('testrest subscription v1', {}, cb))).status).toBe(404)
    expect((await sdkCall((cb) => api().deleteSubscription('testrest subscription v1', {}, cb))).status).toBe(404)
  })

  it('creates a USER_DEFINED subscription with its interval', async () => {
    expect((await create(body({ reportName: 'hourly', reportFrequency: 'USER_DEFINED', reportInterval: 'PT2H30M', startDay: undefined }))).status).toBe(200)
    const got = await sdkCall((cb) => api().getSubscription('hourly', {}, cb))
    expect(got.data).toMatchObject({ reportFrequency: 'USER_DEFINED', reportInterval: 'PT2H30M' })
  })

  it('creates a predefined CLASSIC subscription (201), then updates it (200)', async () => {
    const first = await sdkCall((cb) => api().createStandardOrClassicSubscription({ reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC' }, {}, cb))
    expect(first.error).toBeNull()
    expect(first.status).toBe(201)
    const got = await sdkCall((cb) => api().getSubscription('FundingDetail_Daily_Classic', {}, cb))
    expect(got.data).toMatchObject({ reportDefinitionId: '215', reportFrequency: 'DAILY', timezone: 'GMT' })
    expect(got.data.reportFields).toContain('Funding.FundingAmount')
    const again = await sdkCall((cb) => api().createStandardOrClassicSubscription({ reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC', startTime: '0600' }, {}, cb))
    expect(again.status).toBe(200)
  })

  it('creates a STANDARD subscription in Pacific time', async () => {
    const res = await sdkCall((cb) => api().createStandardOrClassicSubscription({ reportDefinitionName: 'FeeDetailClass', subscriptionType: 'STANDARD', reportFrequency: 'MONTHLY', startDay: 31 }, {}, cb))
    expect(res.status).toBe(201)
    const got = await sdkCall((cb) => api().getSubscription('FeeDetail_Monthly_Standard', {}, cb))
    expect(got.data).toMatchObject({ timezone: 'America/Los_Angeles', reportFrequency: 'MONTHLY', startDay: 31 })
  })
})

describe('tenancy', () => {
  const put = (key: typeof TESTREST_KEY, b: object, merchantId?: string) => signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(b), key, merchantId })

  it("answers another tenant's reportName exactly as an unknown one, on GET and DELETE, and lists only its own", async () => {
    expect((await put(OTHER_KEY, body({ reportName: 'secret plan' }))).status).toBe(200)
    for (const method of ['GET', 'DELETE']) {
      const theirs = await signedCall(t, { method, path: '/reporting/v3/report-subscriptions/secret+plan', key: TESTREST_KEY })
      const unknown = await signedCall(t, { method, path: '/reporting/v3/report-subscriptions/no%20such%20plan', key: TESTREST_KEY })
      expect(theirs.status, method).toBe(404)
      expect({ ...theirs.json, submitTimeUtc: 0 }).toEqual({ ...unknown.json, submitTimeUtc: 0 })
      expect(theirs.json).toMatchObject({ reason: 'NOT_FOUND', details: [{ field: 'reportName' }] })
    }
    const list = await signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions', key: TESTREST_KEY })
    expect(list.json.subscriptions.map((s: { reportName: string }) => s.reportName)).not.toContain('secret plan')
    // Still there for its owner (the `+` in a path stands for a space).
    expect((await signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions/secret+plan', key: OTHER_KEY })).json.organizationId).toBe('othermerchant')
  })

  it('keeps the same name apart per organization; the account acts for a merchant by organizationId in the body', async () => {
    expect((await put(ACCT_KEY, body({ reportName: 'shared', organizationId: 'testrest' }))).status).toBe(200)
    expect((await put(TESTREST_KEY, body({ reportName: 'shared', reportMimeType: 'text/csv' }))).status).toBe(200)
    expect((await put(OTHER_KEY, body({ reportName: 'shared' }))).status).toBe(200)
    const mine = await signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions/shared', key: TESTREST_KEY })
    expect(mine.json).toMatchObject({ organizationId: 'testrest', reportMimeType: 'text/csv' })
    expect((await put(TESTREST_KEY, body({ reportName: 'x', organizationId: 'othermerchant' }))).status).toBe(404)
  })

  it('documents the five operations with their bodies and errors', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json
    const put = doc.paths['/reporting/v3/report-subscriptions'].put
    expect(put.operationId).toBe('createSubscription')
    expect(Object.keys(put.responses).sort()).toEqual(['200', '304', '400', '401', '404', '429'])
    expect(JSON.stringify(put.responses['400'])).toContain('localizationKey')
    expect(doc.paths['/reporting/v3/report-subscriptions'].get.operationId).toBe('getAllSubscriptions')
    expect(doc.paths['/reporting/v3/report-subscriptions/{reportName}'].get.operationId).toBe('getSubscription')
    expect(doc.paths['/reporting/v3/report-subscriptions/{reportName}'].delete.operationId).toBe('deleteSubscription')
    expect(doc.paths['/reporting/v3/predefined-report-subscriptions'].put.operationId).toBe('createStandardOrClassicSubscription')
  })
})
