// What the reporting security tests share: every route behind the reporting gateway with a request that is allowed
// when authenticated, the test-only probe (mounted inside the reporting scope, behind the same gateway) that echoes the
// organization the gateway resolved, and what an admitted and a refused answer look like.
import { Type } from 'typebox'
import { expect } from 'vitest'
import type { ReportingRoutes } from '../../src/reporting/feature.js'
import { actingOrganization } from '../../src/merchant-api/gateway.js'
import type { Response, TestApp } from './harness.js'
import { mleCertificate } from './webhooks.js'

/** Echoes the organization the gateway resolved, for GET and for a POST with a JSON body. */
export const probe: ReportingRoutes = async (scope) => {
  const Echo = Type.Object({ organizationId: Type.String(), authenticatedId: Type.String(), scheme: Type.String(), name: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer()) })
  // A query schema without organizationId, which the gateway adds: its other members must still be converted.
  const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) })
  scope.get('/reporting/v3/probe', { schema: { operationId: 'reportingProbeGet', tags: ['probe'], querystring: Query, response: { 200: Echo } } }, async (request) => {
    const acting = actingOrganization(request)
    const { limit } = request.query as { limit?: number }
    return { organizationId: acting.id, authenticatedId: acting.authenticatedId, scheme: acting.scheme, ...(limit === undefined ? {} : { limit }) }
  })
  scope.post(
    '/reporting/v3/probe',
    { schema: { operationId: 'reportingProbePost', tags: ['probe'], body: Type.Object({ name: Type.String(), organizationId: Type.Optional(Type.String()) }), response: { 200: Echo } } },
    async (request) => {
      const acting = actingOrganization(request)
      return { organizationId: acting.id, authenticatedId: acting.authenticatedId, scheme: acting.scheme, name: request.body.name }
    },
  )
}

export interface Route {
  name: string
  method: string
  /** The path, acting for testrest; or by the organization acted for (a report id is its organization's own). */
  path: string | ((org: string) => string)
  /** A body, or one made anew for each call (the sandbox clock only moves forward). */
  body?: string | (() => string)
}

/** The route's path for the organization acted for (testrest unless told). */
export const pathOf = (route: Route, org = 'testrest') => (typeof route.path === 'string' ? route.path : route.path(org))
/** The route's body, made anew where it must differ from call to call. */
export const bodyOf = (route: Route) => (typeof route.body === 'function' ? route.body() : route.body)

/** The one-time report of each organization the suites act for, by organization (GET /reports/{reportId}). */
const reportIds: Record<string, string> = {}
const ONE_TIME = { reportDefinitionName: 'TransactionRequestClass', reportName: 'Security_Report', reportFields: ['Request.RequestID'], timezone: 'GMT', reportStartTime: '2026-01-20T00:00:00Z', reportEndTime: '2026-01-21T00:00:00Z' }
let clockCalls = 0
/** The certificate keys-asym stores, each call under a new key id (the server makes one when none is given). */
const MLE_PUB = mleCertificate().pub

/** The on-demand reports, over windows of the sandbox's 90 days (they end on the clock's date, 2026-02-01 in the suites). */
export const ON_DEMAND: Route[] = [
  { name: 'GET /purchase-refund-details', method: 'GET', path: '/reporting/v3/purchase-refund-details?startTime=2026-01-10T00:00:00Z&endTime=2026-01-11T00:00:00Z&limit=50' },
  { name: 'GET /net-fundings', method: 'GET', path: '/reporting/v3/net-fundings?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z' },
  { name: 'GET /payment-batch-summaries', method: 'GET', path: '/reporting/v3/payment-batch-summaries?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z' },
  { name: 'GET /conversion-details', method: 'GET', path: '/reporting/v3/conversion-details?startTime=2026-01-01T00:00:00Z&endTime=2026-01-20T00:00:00Z' },
  { name: 'GET /notification-of-changes', method: 'GET', path: '/reporting/v3/notification-of-changes?startTime=2025-11-05T00:00:00Z&endTime=2026-02-01T00:00:00Z' },
]

/**
 * Every route behind the reporting gateway with a request that is allowed when authenticated: /reporting/v3 (the
 * test-only probe included), the sandbox clock, and the webhook routes (those by webhookId are covered by
 * test/webhooks/management.test.ts). Each of the HTTP Signature, JWT and OAuth suites runs all of them.
 */
export const ROUTES: Route[] = [
  { name: 'GET /report-definitions', method: 'GET', path: '/reporting/v3/report-definitions' },
  { name: 'GET /report-definitions/{name}', method: 'GET', path: '/reporting/v3/report-definitions/TransactionRequestClass' },
  { name: 'GET /probe', method: 'GET', path: '/reporting/v3/probe' },
  { name: 'POST /probe', method: 'POST', path: '/reporting/v3/probe', body: '{"name":"x"}' },
  { name: 'GET /report-subscriptions', method: 'GET', path: '/reporting/v3/report-subscriptions' },
  { name: 'GET /report-subscriptions/{name}', method: 'GET', path: '/reporting/v3/report-subscriptions/Security_Probe' },
  { name: 'PUT /report-subscriptions', method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify({ reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Security_Probe', reportFields: ['VERes.Enrolled'], timezone: 'GMT' }) },
  { name: 'PUT /predefined-report-subscriptions', method: 'PUT', path: '/reporting/v3/predefined-report-subscriptions', body: '{"reportDefinitionName":"FundingDetailClass","subscriptionType":"CLASSIC"}' },
  { name: 'POST /reports', method: 'POST', path: '/reporting/v3/reports', body: JSON.stringify(ONE_TIME) },
  { name: 'GET /reports', method: 'GET', path: '/reporting/v3/reports?startTime=2026-01-20T00:00:00Z&endTime=2026-01-21T00:00:00Z&timeQueryType=reportTimeFrame' },
  { name: 'GET /reports/{reportId}', method: 'GET', path: (org) => `/reporting/v3/reports/${reportIds[org]}` },
  { name: 'GET /report-downloads', method: 'GET', path: '/reporting/v3/report-downloads?reportName=Security_Report&reportDate=2026-01-20' },
  { name: 'GET /sandbox/v1/clock', method: 'GET', path: '/sandbox/v1/clock' },
  { name: 'POST /sandbox/v1/clock', method: 'POST', path: '/sandbox/v1/clock', body: () => JSON.stringify({ to: new Date(Date.UTC(2026, 1, 1, 10) + ++clockCalls * 60_000).toISOString() }) },
  ...ON_DEMAND,
  { name: 'POST /kms/egress/v2/keys-sym', method: 'POST', path: '/kms/egress/v2/keys-sym', body: '{}' },
  { name: 'POST /kms/egress/v2/keys-asym', method: 'POST', path: '/kms/egress/v2/keys-asym', body: JSON.stringify({ keyInformation: { pub: MLE_PUB } }) },
  { name: 'GET /notification-subscriptions/v2/webhooks', method: 'GET', path: '/notification-subscriptions/v2/webhooks' },
  { name: 'POST /notification-subscriptions/v2/webhooks', method: 'POST', path: '/notification-subscriptions/v2/webhooks', body: JSON.stringify({ products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' }) },
  { name: 'GET /webhooks/v1/notifications', method: 'GET', path: '/webhooks/v1/notifications' },
  { name: 'POST /webhooks/v1/events', method: 'POST', path: '/webhooks/v1/events', body: '{"eventType":"invoicing.customer.invoice.paid","data":{}}' },
  { name: 'POST /sandbox/v1/events', method: 'POST', path: '/sandbox/v1/events', body: '{"eventType":"reporting.report.no-data"}' },
]

/**
 * A security-suite app (its clock at 2026-02-01T09:00Z, the probe mounted): in every organization the suites act
 * for, the subscription the GET by name reads, a completed one-time report for its details and download, and a
 * webhook signing key (a webhook subscription needs one).
 */
export async function prepareSecurityApp(t: TestApp): Promise<void> {
  for (const org of ['testrest', 'testrest_two']) {
    await t.app.services.reporting.subscriptions.put(org, { reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Security_Probe', reportFields: ['VERes.Enrolled'], timezone: 'GMT' })
    reportIds[org] = (await t.app.services.reporting.reports.createOneTime(org, ONE_TIME)).reportId
  }
  await t.app.services.jobs.runDue()
  for (const org of ['testrest', 'testrest_two']) await t.app.services.webhooks.keys.save({ id: org, authenticatedId: org }, {})
}

export const AUTH_FAILED = { response: { rmsg: 'Authentication Failed' } }
/** Admitted: the route's own answer (200, or 201/304 for a PUT that creates or changes nothing). */
export const expectAllowed = (res: Response) => expect([200, 201, 304], res.text).toContain(res.status)
export const expectRefused = (res: Response) => {
  expect(res.status, res.text).toBe(401)
  expect(res.json).toEqual(AUTH_FAILED)
}
/** The route's path (for the organization acted for) with a query parameter added. */
export const withQuery = (route: Route, query: string, org = 'testrest') => `${pathOf(route, org)}${pathOf(route, org).includes('?') ? '&' : '?'}${query}`
