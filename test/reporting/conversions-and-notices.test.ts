// GET /reporting/v3/conversion-details and /notification-of-changes: through the official SDK with its own key and
// in meta-key mode, every conversion (notification) whose time is in the window and no other, compared with the
// stored rows; conversion details streamed as JSON, CSV and XML; errors and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day, get, storedRows } from '../support/on-demand.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

/** Rows whose `group.field` time is in [from, to), by that time then request id, with that group. */
async function withEvent(org: string, group: string, field: string, from: string, to: string) {
  const rows = (await storedRows(t, org)).map((r) => ({ id: r.request_id, fields: JSON.parse(r.fields) as Record<string, Record<string, string>> }))
  const hits = rows.filter((r) => r.fields[group]?.[field] !== undefined && r.fields[group]![field]! >= from && r.fields[group]![field]! < to)
  return hits.sort((a, b) => a.fields[group]![field]!.localeCompare(b.fields[group]![field]!) || a.id.localeCompare(b.id))
}

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('the SDK as %s', (_name, merchantId, key) => {
  const config = () => sdkConfig(t.baseUrl, merchantId, key)

  it('ConversionDetailsApi lists every review converted in the window, with its decisions and notes', async () => {
    const [from, to] = [day(t, -60), day(t, -30)]
    const res = await sdkCall((cb) => new cybersource.ConversionDetailsApi(config(), new cybersource.ApiClient()).getConversionDetail(from, to, { organizationId: merchantId }, cb))
    expect(res.error).toBeNull()
    expect(res.data).toMatchObject({ organizationId: merchantId })
    const want = await withEvent(merchantId, 'Conversion', 'ConversionDate', from, to)
    expect(want.length).toBeGreaterThan(20)
    expect(res.data.conversionDetails.map((c: { requestId: string }) => c.requestId)).toEqual(want.map((w) => w.id))
    const [first] = res.data.conversionDetails
    const c = want[0]!.fields['Conversion']!
    expect(first).toMatchObject({ originalDecision: 'REVIEW', newDecision: c['NewDecision'], reviewer: c['Reviewer'], reviewerComments: c['ReviewerComments'], queue: c['Queue'], profile: c['Profile'] })
    expect(first.conversionTime).toEqual(new Date(c['ConversionDate']!))
    expect(first.notes).toEqual([expect.objectContaining({ addedBy: c['Reviewer'], comments: c['ReviewerComments'] })])
  })

  it('NotificationOfChangesApi lists every notification of change received in the window', async () => {
    const [from, to] = [day(t, -85), day(t, -1)]
    const res = await sdkCall((cb) => new cybersource.NotificationOfChangesApi(config(), new cybersource.ApiClient()).getNotificationOfChangeReport(from, to, cb))
    expect(res.error).toBeNull()
    const want = await withEvent(merchantId, 'NotificationOfChange', 'Time', from, to)
    expect(want.length).toBeGreaterThan(3)
    const notices = res.data.notificationOfChanges
    expect(notices).toHaveLength(want.length)
    const n = want[0]!.fields['NotificationOfChange']!
    expect(notices[0]).toMatchObject({ code: n['Code'], accountType: n['AccountType'], routingNumber: n['RoutingNumber'], accountNumber: n['AccountNumber'], consumerName: n['ConsumerName'] })
    expect(notices[0].accountNumber).toMatch(/^#{12}\d{4}$/)
    expect(notices[0].merchantReferenceNumber).toBe(want[0]!.fields['OrderFields']!['MerchantReferenceNumber'])
  })
})

describe('conversion details', () => {
  const path = (from: string, to: string) => `/reporting/v3/conversion-details?startTime=${from}&endTime=${to}`

  it('streams a long window whole, in JSON, CSV and XML alike', async () => {
    const [from, to] = [day(t, -89), day(t, 0)]
    const want = (await withEvent('testrest', 'Conversion', 'ConversionDate', from, to)).map((w) => w.id)
    // More than one of the stream's pages of rows.
    expect(want.length).toBeGreaterThan(100)
    const json = await get(t, path(from, to))
    expect(json.json.conversionDetails.map((c: { requestId: string }) => c.requestId)).toEqual(want)
    const csv = await get(t, path(from, to), { accept: 'text/csv' })
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
    const lines = csv.text.trimEnd().split('\r\n')
    expect(lines[0]).toBe('merchantReferenceNumber,conversionTime,requestId,originalDecision,newDecision,reviewer,reviewerComments,queue,profile')
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(want)
    const xml = await get(t, path(from, to), { accept: 'application/xml' })
    expect(xml.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Report Name="Conversion Detail Report" Version="1.0" MerchantID="testrest" ReportStartDate="/)
    expect([...xml.text.matchAll(/<Conversion [^>]*RequestID="(\d+)"/g)].map((m) => m[1])).toEqual(want)
    expect(xml.text).toMatch(/<OriginalDecision>REVIEW<\/OriginalDecision><NewDecision>(ACCEPT|REJECT)<\/NewDecision><Reviewer>/)
    expect(xml.text).toMatch(/<Notes><Note Date="[^"]+" AddedBy="[^"]+" Comment="[^"]+"\/><\/Notes><\/Conversion>/)
  })

  it("answers 404 for an empty window, 400 naming a bad time, and another tenant's organizationId as unknown", async () => {
    expect((await get(t, path('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z'))).status).toBe(404)
    const bad = await get(t, path('2026-02-30T00:00:00Z', day(t, 0)))
    expect(bad.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'startTime' }] })
    const other = await get(t, `${path(day(t, -10), day(t, 0))}&organizationId=othermerchant`)
    expect(other.status).toBe(404)
    expect(other.json.details).toEqual([{ field: 'organizationId', reason: 'no such organization' }])
    const theirs = await get(t, path(day(t, -30), day(t, 0)), { key: OTHER_KEY })
    const ours = new Set((await withEvent('testrest', 'Conversion', 'ConversionDate', day(t, -30), day(t, 0))).map((w) => w.id))
    expect(theirs.json.organizationId).toBe('othermerchant')
    expect(theirs.json.conversionDetails.some((c: { requestId: string }) => ours.has(c.requestId))).toBe(false)
  })
})

describe('notification of changes', () => {
  it('answers 404 for an empty window and 400 for one over 92 days', async () => {
    const path = (from: string, to: string) => `/reporting/v3/notification-of-changes?startTime=${from}&endTime=${to}`
    expect((await get(t, path('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z'))).status).toBe(404)
    const long = await get(t, path(day(t, -93), day(t, 0)))
    expect(long.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'endTime', reason: 'the window may span at most 92 days' }] })
  })
})

describe('the OpenAPI document', () => {
  it('lists the five on-demand operations with their bodies per format and their errors', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json
    const ops = {
      '/reporting/v3/purchase-refund-details': ['getPurchaseAndRefundDetails', ['200', '400', '401', '404', '429', '500'], ['application/json', 'application/hal+json', 'text/csv', 'application/xml']],
      '/reporting/v3/net-fundings': ['getNetFundingDetails', ['200', '400', '401', '403', '404', '429', '500'], ['application/json', 'application/hal+json']],
      '/reporting/v3/payment-batch-summaries': ['getPaymentBatchSummary', ['200', '400', '401', '404', '429'], ['application/json', 'application/hal+json']],
      '/reporting/v3/conversion-details': ['getConversionDetail', ['200', '400', '401', '404', '429'], ['application/json', 'application/hal+json', 'text/csv', 'application/xml']],
      '/reporting/v3/notification-of-changes': ['getNotificationOfChangeReport', ['200', '400', '401', '404', '429', '500'], ['application/json', 'application/hal+json']],
    } as const
    for (const [path, [operationId, statuses, types]] of Object.entries(ops)) {
      const op = doc.paths[path].get
      expect(op.operationId).toBe(operationId)
      expect(Object.keys(op.responses).sort()).toEqual([...statuses].sort())
      expect(Object.keys(op.responses['200'].content).sort()).toEqual([...types].sort())
      expect(op.responses['400'].content['application/json'].schema.properties.reason.enum).toEqual(['INVALID_DATA'])
      expect(op.parameters.filter((p: { required?: boolean }) => p.required).map((p: { name: string }) => p.name).sort()).toEqual(['endTime', 'startTime'])
    }
    const prd = doc.paths['/reporting/v3/purchase-refund-details'].get.responses['200'].content['application/json'].schema
    expect(Object.keys(prd.properties)).toEqual(['offset', 'limit', 'pageResults', 'requestDetails', 'settlements', 'authorizations', 'feeAndFundingDetails', 'others', 'settlementStatuses'])
  })
})
