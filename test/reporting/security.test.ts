// The reporting security suite, HTTP Signature part (the JWT and OAuth bearer parts are security-jwt.test.ts and
// security-oauth.test.ts): every /reporting/v3 route and the sandbox clock (/sandbox/v1, the same gateway), the
// test-only probe POST (mounted inside the reporting scope, behind the same gateway) included, and the webhook
// routes behind the same gateway, against every way of not being allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders, type SignOptions } from '../support/reporting.js'
import { ROUTES as SHARED_ROUTES, probe } from '../support/reporting-routes.js'

let t: TestApp
/** The one-time report of each organization the suite acts for, by organization (GET /reports/{reportId}). */
const reportIds: Record<string, string> = {}
const ONE_TIME = { reportDefinitionName: 'TransactionRequestClass', reportName: 'Security_Report', reportFields: ['Request.RequestID'], timezone: 'GMT', reportStartTime: '2026-01-20T00:00:00Z', reportEndTime: '2026-01-21T00:00:00Z' }
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe] })
  // The subscription GET by name needs one to read, in every organization the suite acts for; so do the report's
  // details and download (a completed report of the same name and day in each).
  for (const org of ['testrest', 'testrest_two']) {
    await t.app.services.reporting.subscriptions.put(org, { reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Security_Probe', reportFields: ['VERes.Enrolled'], timezone: 'GMT' })
    reportIds[org] = (await t.app.services.reporting.reports.createOneTime(org, ONE_TIME)).reportId
  }
  await t.app.services.jobs.runDue()
  // A webhook subscription needs a signing key of its organization.
  for (const org of ['testrest', 'testrest_two']) await t.app.services.webhooks.keys.save({ id: org, authenticatedId: org }, {})
})
afterAll(() => t.close())

interface Route {
  name: string
  method: string
  /** The path, acting for testrest; or by the organization acted for. */
  path: string | ((org: string) => string)
  /** A body, or one made anew for each call (the sandbox clock only moves forward). */
  body?: string | (() => string)
}
let clockCalls = 0
const pathOf = (route: Route, org = 'testrest') => (typeof route.path === 'string' ? route.path : route.path(org))
const bodyOf = (route: Route) => (typeof route.body === 'function' ? route.body() : route.body)
const ON_DEMAND: Route[] = [
  { name: 'GET /purchase-refund-details', method: 'GET', path: '/reporting/v3/purchase-refund-details?startTime=2026-01-10T00:00:00Z&endTime=2026-01-11T00:00:00Z&limit=50' },
  { name: 'GET /net-fundings', method: 'GET', path: '/reporting/v3/net-fundings?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z' },
  { name: 'GET /payment-batch-summaries', method: 'GET', path: '/reporting/v3/payment-batch-summaries?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z' },
  { name: 'GET /conversion-details', method: 'GET', path: '/reporting/v3/conversion-details?startTime=2026-01-01T00:00:00Z&endTime=2026-01-20T00:00:00Z' },
  { name: 'GET /notification-of-changes', method: 'GET', path: '/reporting/v3/notification-of-changes?startTime=2025-11-05T00:00:00Z&endTime=2026-02-01T00:00:00Z' },
]
// The routes the JWT and OAuth suites share, then the report engine's, the sandbox clock's and the on-demand ones.
const ROUTES: Route[] = [
  ...SHARED_ROUTES,
  { name: 'POST /reports', method: 'POST', path: '/reporting/v3/reports', body: JSON.stringify(ONE_TIME) },
  { name: 'GET /reports', method: 'GET', path: '/reporting/v3/reports?startTime=2026-01-20T00:00:00Z&endTime=2026-01-21T00:00:00Z&timeQueryType=reportTimeFrame' },
  { name: 'GET /reports/{reportId}', method: 'GET', path: (org) => `/reporting/v3/reports/${reportIds[org]}` },
  { name: 'GET /report-downloads', method: 'GET', path: '/reporting/v3/report-downloads?reportName=Security_Report&reportDate=2026-01-20' },
  { name: 'GET /sandbox/v1/clock', method: 'GET', path: '/sandbox/v1/clock' },
  { name: 'POST /sandbox/v1/clock', method: 'POST', path: '/sandbox/v1/clock', body: () => JSON.stringify({ to: new Date(Date.UTC(2026, 1, 1, 10) + ++clockCalls * 60_000).toISOString() }) },
  // The on-demand reports, over windows of the sandbox's 90 days (they end on the clock's date).
  ...ON_DEMAND,
  // The webhook routes behind the same gateway (those by webhookId are covered by test/webhooks/management.test.ts).
  { name: 'POST /kms/egress/v2/keys-sym', method: 'POST', path: '/kms/egress/v2/keys-sym', body: '{}' },
  { name: 'GET /notification-subscriptions/v2/webhooks', method: 'GET', path: '/notification-subscriptions/v2/webhooks' },
  { name: 'POST /notification-subscriptions/v2/webhooks', method: 'POST', path: '/notification-subscriptions/v2/webhooks', body: JSON.stringify({ products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' }) },
  { name: 'GET /webhooks/v1/notifications', method: 'GET', path: '/webhooks/v1/notifications' },
  { name: 'POST /webhooks/v1/events', method: 'POST', path: '/webhooks/v1/events', body: '{"eventType":"invoicing.customer.invoice.paid","data":{}}' },
  { name: 'POST /sandbox/v1/events', method: 'POST', path: '/sandbox/v1/events', body: '{"eventType":"reporting.report.no-data"}' },
]

const AUTH_FAILED = { response: { rmsg: 'Authentication Failed' } }
/** Admitted: the route's own answer (200, or 201/304 for a PUT that creates or changes nothing). */
const expectAllowed = (res: Response) => expect([200, 201, 304]).toContain(res.status)
const expectRefused = (res: Response) => {
  expect(res.status).toBe(401)
  expect(res.json).toEqual(AUTH_FAILED)
}
/** The route's path (for the organization acted for) with a query parameter added. */
const withQuery = (route: Route, query: string, org = 'testrest') => `${pathOf(route, org)}${pathOf(route, org).includes('?') ? '&' : '?'}${query}`
const send = (route: Route, o: Partial<SignOptions> = {}) => signedCall(t, { method: route.method, path: pathOf(route), body: bodyOf(route), key: TESTREST_KEY, ...o })

describe.each(ROUTES)('reporting security: $name', (route) => {
  it('is allowed with a valid signature', async () => {
    expectAllowed(await send(route))
  })

  it('refuses a call without credentials', async () => {
    expectRefused(await t.call(route.method, pathOf(route), { headers: { 'x-svc-key': undefined, 'content-type': 'application/json' }, body: bodyOf(route) }))
  })

  it('refuses a wrong secret', async () => {
    expectRefused(await send(route, { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } }))
  })

  it('refuses a stale and a future date (over five minutes off the server clock)', async () => {
    const now = t.clock.now().getTime()
    expectRefused(await send(route, { date: new Date(now - 5 * 60_000 - 2000) }))
    expectRefused(await send(route, { date: new Date(now + 5 * 60_000 + 2000) }))
    expectAllowed(await send(route, { date: new Date(now - 4 * 60_000) }))
  })

  it('refuses a signature made for another host than the one received', async () => {
    const body = bodyOf(route)
    const headers = signedHeaders({ method: route.method, path: pathOf(route), body, key: TESTREST_KEY, date: t.clock.now() })
    expectRefused(await t.call(route.method, pathOf(route), { headers: { ...headers, host: 'api.cybersource.com' }, body }))
  })

  it('refuses a revoked key', async () => {
    const { key, secret } = await t.app.services.reportingKeys.create('testrest')
    const fresh = { id: key.id, secret, org: 'testrest' }
    expectAllowed(await send(route, { key: fresh }))
    await t.app.services.reportingKeys.revoke(key.id)
    expectRefused(await send(route, { key: fresh }))
  })

  it('refuses a banking session token', async () => {
    const login = await t.call('POST', '/v2/auth?v=1', {
      body: { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } },
    })
    const token = login.json.loginResponse.tokens[0].value as string
    for (const authorization of [token, `Bearer ${token}`]) {
      expectRefused(await t.call(route.method, pathOf(route), { headers: { 'x-svc-key': undefined, authorization, 'content-type': 'application/json' }, body: bodyOf(route) }))
    }
  })

  it("refuses a key signing for a merchant outside its organization's tree", async () => {
    expectRefused(await send(route, { key: OTHER_KEY, merchantId: 'testrest' }))
    expectRefused(await send(route, { key: TESTREST_KEY, merchantId: 'testrest_two' }))
  })

  it("refuses another tenant's organizationId exactly as an unknown one", async () => {
    const other = await send(route, { path: withQuery(route, 'organizationId=othermerchant') })
    const unknown = await send(route, { path: withQuery(route, 'organizationId=nosuchorg') })
    const sibling = await send(route, { path: withQuery(route, 'organizationId=testrest_two') })
    const parent = await send(route, { path: withQuery(route, 'organizationId=testrest_acct') })
    for (const res of [other, unknown, sibling, parent]) {
      expect(res.status).toBe(404)
      expect({ ...res.json, submitTimeUtc: undefined }).toEqual({ ...unknown.json, submitTimeUtc: undefined })
    }
  })

  it("allows a descendant's organizationId, for the account's key and for its meta-key signature", async () => {
    expectAllowed(await send(route, { key: ACCT_KEY, path: withQuery(route, 'organizationId=testrest') }))
    expectAllowed(await send(route, { key: ACCT_KEY, merchantId: 'testrest_two', path: withQuery(route, 'organizationId=testrest_two', 'testrest_two') }))
  })
})

describe('a partner on the on-demand reports', () => {
  /** Every organization an answer names (merchant ids, request ids' owners). */
  const named = (res: Response): Set<string> => new Set([...res.text.matchAll(/"(?:cybersourceMerchantId|merchantId|accountId|organizationId)":"([^"]+)"/g)].map((m) => m[1]!))

  it.each(ON_DEMAND.map((r) => [r.name, r] as const))("%s: reads each of its merchants, and never another tenant's", async (_name, route) => {
    for (const merchant of ['testrest', 'testrest_two']) {
      const res = await send(route, { key: ACCT_KEY, path: withQuery(route, `organizationId=${merchant}`) })
      expect(res.status, merchant).toBe(200)
      for (const org of named(res)) expect(['testrest_acct', merchant]).toContain(org)
    }
    const other = await send(route, { key: ACCT_KEY, path: withQuery(route, 'organizationId=othermerchant') })
    expect(other.status).toBe(404)
    expect(other.json.details).toEqual([{ field: 'organizationId', reason: 'no such organization' }])
  })

  it("breaks payment batch summaries down over its own merchants only; another tenant's key sees only itself", async () => {
    const path = `${ON_DEMAND[2]!.path}&rollUp=week&breakdown=all_merchant`
    const partner = await signedCall(t, { method: 'GET', path, key: ACCT_KEY })
    expect([...named(partner)].sort()).toEqual(['testrest', 'testrest_acct', 'testrest_two'])
    const other = await signedCall(t, { method: 'GET', path, key: OTHER_KEY })
    expect([...named(other)]).toEqual(['othermerchant'])
  })
})

describe('reporting gateway', () => {
  it('refuses a body that does not match its digest, and a digest of another body', async () => {
    const route = ROUTES[3]!
    const headers = signedHeaders({ method: 'POST', path: pathOf(route), body: '{"name":"x"}', key: TESTREST_KEY, date: t.clock.now() })
    expectRefused(await t.call('POST', pathOf(route), { headers, body: '{"name":"y"}' }))
    expectRefused(await send(route, { digest: 'SHA-256=' + Buffer.alloc(32).toString('base64') }))
  })

  it('checks the signature before the body: a malformed body with a bad signature is 401, with a good one 400', async () => {
    expectRefused(await send(ROUTES[3]!, { body: '{"name":', key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } }))
    const res = await send(ROUTES[3]!, { body: '{"name":' })
    expect(res.status).toBe(400)
    expect(res.json.reason).toBe('INVALID_DATA')
  })

  it('resolves the acting organization: the signed merchant, a descendant named in the query or the body', async () => {
    const scheme = 'http_signature'
    expect((await send(ROUTES[2]!)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme })
    expect((await send(ROUTES[2]!, { key: ACCT_KEY, path: '/reporting/v3/probe?organizationId=testrest_two' })).json).toEqual({ organizationId: 'testrest_two', authenticatedId: 'testrest_acct', scheme })
    expect((await send(ROUTES[2]!, { key: ACCT_KEY, merchantId: 'testrest' })).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme })
    const posted = await send(ROUTES[3]!, { key: ACCT_KEY, body: '{"name":"n","organizationId":"testrest"}' })
    expect(posted.json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest_acct', scheme, name: 'n' })
  })

  it('answers an unknown path under /reporting/v3 only after authentication', async () => {
    expectRefused(await t.call('GET', '/reporting/v3/nothing-here', { headers: { 'x-svc-key': undefined } }))
    const res = await signedCall(t, { method: 'GET', path: '/reporting/v3/nothing-here', key: TESTREST_KEY })
    expect(res.status).toBe(404)
    expect(res.json.reason).toBe('NOT_FOUND')
  })

  it('counts failures by reason in an info log line that holds no secret', async () => {
    await send(ROUTES[0]!, { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } })
    const lines = t.logs.filter((l) => l['msg'] === 'reporting authentication failed')
    expect(lines.length).toBeGreaterThan(0)
    const last = lines.at(-1)!
    expect(last['level']).toBe(30)
    expect(last['reason']).toBe('bad_signature')
    expect((last['failures'] as Record<string, number>)['bad_signature']).toBeGreaterThan(0)
    const all = JSON.stringify(t.logs)
    for (const key of [TESTREST_KEY, ACCT_KEY, OTHER_KEY]) expect(all).not.toContain(key.secret)
  })
})
