// The console's report and subscription pages through HTTP, as a browser without JavaScript uses them, checked
// against the signed API: a refused subscription form comes back with the service's reasons; an edit and a delete
// are what the API then answers; the one-time form's field filter and its 503-field choice; the report search's
// filters; another organization acted for shows that organization's subscriptions.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TRANSACTION_REQUEST_FIELDS } from '../../src/reporting/report-definitions/transaction-request-fields.js'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'

let t: TestApp
let b: ConsoleBrowser
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
  b = new ConsoleBrowser(t)
  await b.signIn()
})
afterAll(() => t.close())

const api = (path: string, key = TESTREST_KEY) => signedCall(t, { method: 'GET', path, key })
const form = (over: Record<string, string | string[]> = {}) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportName: 'pages_sub',
  reportFields: ['Request.RequestID', 'Request.TransactionDate'],
  reportMimeType: 'text/csv',
  reportFrequency: 'DAILY',
  timezone: 'GMT',
  startTime: '0300',
  ...over,
})

it('answers a refused subscription form with the service’s reasons, and saves nothing', async () => {
  const res = await b.submit('/console/subscriptions/new?definition=TransactionRequestClass', '/console/subscriptions', form({ startTime: '2500' }))
  expect(res.status).toBe(400)
  expect(res.text).toContain('That could not be saved')
  expect(res.text).toContain('startTime')
  expect(res.text).toContain('value="pages_sub"')
  expect((await api('/reporting/v3/report-subscriptions/pages_sub')).status).toBe(404)
})

it('creates, edits and deletes a subscription, as the API then answers', async () => {
  expect((await b.submit('/console/subscriptions/new?definition=TransactionRequestClass', '/console/subscriptions', form())).status).toBe(303)
  const edit = await b.get('/console/subscriptions/pages_sub')
  expect(edit.status).toBe(200)
  expect(edit.text).toContain('value="0300"')
  expect((await b.submit('/console/subscriptions/pages_sub', '/console/subscriptions/pages_sub', form({ reportFrequency: 'WEEKLY', startDay: '2', timezone: 'Asia/Tokyo' }))).status).toBe(303)
  const after = await api('/reporting/v3/report-subscriptions/pages_sub')
  expect(after.json).toMatchObject({ reportFrequency: 'WEEKLY', startDay: 2, timezone: 'Asia/Tokyo' })
  const list = await b.get('/console/subscriptions')
  // 2026-02-01T00:00Z is Sunday 09:00 in Tokyo: the next Monday (startDay 2) at 03:00 there.
  expect(list.text).toContain('2026-02-02 03:00 (Asia/Tokyo)')
  expect((await b.submit('/console/subscriptions', '/console/subscriptions/pages_sub/delete', {})).status).toBe(303)
  expect((await api('/reporting/v3/report-subscriptions/pages_sub')).status).toBe(404)
})

it('filters the one-time form’s fields, and offers the reference’s 503 TransactionRequestClass fields as one choice', async () => {
  const filtered = await b.get('/console/reports/new?definition=TransactionRequestClass&q=email')
  const shown = [...filtered.text.matchAll(/name="reportFields" value="([^"]+)"/g)].map((m) => m[1]!)
  const every = [...(await b.get('/console/reports/new?definition=TransactionRequestClass')).text.matchAll(/name="reportFields" value="([^"]+)"/g)]
  expect(shown.length).toBeGreaterThan(0)
  expect(shown.length).toBeLessThan(every.length / 4)
  expect(shown).toContain('BillTo.Email')
  expect(shown).not.toContain('Request.RequestID')
  const res = await b.submit('/console/reports/new?definition=TransactionRequestClass', '/console/reports', {
    reportDefinitionName: 'TransactionRequestClass',
    reportName: 'all_503',
    reportMimeType: 'text/csv',
    timezone: 'GMT',
    reportStartTime: '2026-01-30T00:00:00Z',
    reportEndTime: '2026-01-31T00:00:00Z',
    preset: 'transaction-request-503',
  })
  expect(res.status).toBe(303)
  const id = String(res.headers.location).split('/').pop()!
  const detail = await api(`/reporting/v3/reports/${id}`)
  expect(detail.json.reportFields).toEqual([...TRANSACTION_REQUEST_FIELDS])
  expect(TRANSACTION_REQUEST_FIELDS).toHaveLength(503)
})

it('searches reports by time frame, name and status', async () => {
  const found = await b.get('/console/reports?from=2026-01-29&to=2026-02-01&name=all_503')
  expect(found.text).toContain('all_503')
  expect((await b.get('/console/reports?from=2026-01-29&to=2026-02-01&name=nothing_by_this_name')).text).toContain('No reports in this time frame')
  expect((await b.get('/console/reports?from=2026-01-29&to=2026-02-01&status=ERROR')).text).not.toContain('all_503')
  expect((await b.get('/console/reports?from=2020-01-01&to=2020-01-02')).text).not.toContain('all_503')
})

it('shows the subscriptions of the organization acted for', async () => {
  const { password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest_acct', username: 'pages-acct' })
  const body = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName: 'two_sub', reportFrequency: 'DAILY', timezone: 'GMT', startTime: '0100', organizationId: 'testrest_two' }
  expect((await signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(body), key: ACCT_KEY })).status).toBe(200)
  const acct = new ConsoleBrowser(t)
  await acct.signIn('pages-acct', password)
  expect((await acct.get('/console/subscriptions')).text).not.toContain('two_sub')
  await acct.submit('/console/organization', '/console/organization', { organizationId: 'testrest_two' })
  expect((await acct.get('/console/subscriptions')).text).toContain('two_sub')
})
