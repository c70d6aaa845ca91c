// The merchant API family's protected routes for the shared security suite: every route behind its gateway (reporting
// under /reporting/v3, the sandbox clock and events, the key service, webhook management and the delivery log, and
// the test-only probe), each with a request that is allowed for the organization acted for. The HTTP Signature, JWT
// and OAuth bearer suites (test/merchant-api/security*.test.ts) each run all of them; so does the replay suite.
// Also: the probe (mounted inside the reporting scope, behind the same gateway) that echoes the organization the
// gateway resolved, and what an admitted and a refused answer look like.
import { Type } from 'typebox'
import { expect } from 'vitest'
import { actingOrganization } from '../../../src/merchant-api/gateway.js'
import type { ReportingRoutes } from '../../../src/reporting/feature.js'
import type { Response, TestApp } from '../harness.js'
import { mleCertificate } from '../webhooks.js'
import type { SecuredRoute } from './suite.js'

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

/** One call of a route: its path (query included) and its JSON body. */
export interface MerchantRequest {
  method: string
  path: string
  body?: string
}

export interface MerchantRoute extends SecuredRoute {
  /** A call the route allows when acting for the organization, made anew each time (a DELETE uses up what it names). */
  request: (org: string) => Promise<MerchantRequest>
  /** For a route that takes an identifier of an organization's own: the call naming one nobody has. */
  unknown?: () => MerchantRequest
}

/** The organizations the suites act for, and another tenant (othermerchant, outside testrest_acct's tree). */
const ORGANIZATIONS = ['testrest', 'testrest_two', 'othermerchant'] as const
const ONE_TIME = { reportDefinitionName: 'TransactionRequestClass', reportName: 'Security_Report', reportFields: ['Request.RequestID'], timezone: 'GMT', reportStartTime: '2026-01-20T00:00:00Z', reportEndTime: '2026-01-21T00:00:00Z' }
const SUBSCRIPTION = { reportDefinitionName: 'PayerAuthDetailClass', reportFields: ['VERes.Enrolled'], timezone: 'GMT' }
const WEBHOOK = { products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' }
/** The certificate keys-asym stores, each call under a new key id (the server makes one when none is given). */
const MLE_PUB = mleCertificate().pub

/** What prepareSecurityApp made, by organization: a one-time report and a notification of the delivery log. */
const prepared = { app: undefined as TestApp | undefined, reportIds: {} as Record<string, string>, notificationIds: {} as Record<string, string> }
let made = 0
const services = () => prepared.app!.app.services
const acting = (org: string) => ({ id: org, authenticatedId: org })

/** A webhook subscription of the organization's, made for one call. */
const webhook = async (org: string) => (await services().webhooks.subscriptions.create(acting(org), WEBHOOK)).webhookId
/** A report subscription of the organization's, made for one call (a DELETE removes it). */
async function reportSubscription(org: string): Promise<string> {
  const reportName = `Security_Delete_${++made}`
  await services().reporting.subscriptions.put(org, { ...SUBSCRIPTION, reportName })
  return reportName
}

/** A route whose call is the same whoever acts (the organization comes from the credential). */
function fixed(route: string, path: string, body?: string | (() => string)): MerchantRoute {
  const [method = ''] = route.split(' ')
  return { route, request: async () => ({ method, path, ...(body === undefined ? {} : { body: typeof body === 'function' ? body() : body }) }) }
}

/** A route naming something of the organization's own in its path. */
function owned(route: string, path: (org: string) => Promise<string>, unknownPath: string, body?: string): MerchantRoute {
  const [method = ''] = route.split(' ')
  const withBody = body === undefined ? {} : { body }
  return { route, request: async (org) => ({ method, path: await path(org), ...withBody }), unknown: () => ({ method, path: unknownPath, ...withBody }) }
}

/** The on-demand reports, over windows of the sandbox's 90 days (they end on the clock's date, 2026-02-01 in the suites). */
export const ON_DEMAND: readonly MerchantRoute[] = [
  fixed('GET /reporting/v3/purchase-refund-details', '/reporting/v3/purchase-refund-details?startTime=2026-01-10T00:00:00Z&endTime=2026-01-11T00:00:00Z&limit=50'),
  fixed('GET /reporting/v3/net-fundings', '/reporting/v3/net-fundings?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z'),
  fixed('GET /reporting/v3/payment-batch-summaries', '/reporting/v3/payment-batch-summaries?startTime=2026-01-01T00:00:00Z&endTime=2026-01-15T00:00:00Z'),
  fixed('GET /reporting/v3/conversion-details', '/reporting/v3/conversion-details?startTime=2026-01-01T00:00:00Z&endTime=2026-01-20T00:00:00Z'),
  fixed('GET /reporting/v3/notification-of-changes', '/reporting/v3/notification-of-changes?startTime=2025-11-05T00:00:00Z&endTime=2026-02-01T00:00:00Z'),
]

const V2_WEBHOOK = '/notification-subscriptions/v2/webhooks'
const REPLAY = '{"byDeliveryStatus":{"status":"FAILED","hoursBack":24}}'

export const MERCHANT_ROUTES: readonly MerchantRoute[] = [
  fixed('GET /reporting/v3/report-definitions', '/reporting/v3/report-definitions'),
  fixed('GET /reporting/v3/report-definitions/:reportDefinitionName', '/reporting/v3/report-definitions/TransactionRequestClass'),
  fixed('GET /reporting/v3/probe', '/reporting/v3/probe'),
  fixed('POST /reporting/v3/probe', '/reporting/v3/probe', '{"name":"x"}'),
  fixed('GET /reporting/v3/report-subscriptions', '/reporting/v3/report-subscriptions'),
  owned('GET /reporting/v3/report-subscriptions/:reportName', async (org) => `/reporting/v3/report-subscriptions/Security_Probe_${org}`, '/reporting/v3/report-subscriptions/No_Such_Report'),
  fixed('PUT /reporting/v3/report-subscriptions', '/reporting/v3/report-subscriptions', JSON.stringify({ ...SUBSCRIPTION, reportName: 'Security_Probe' })),
  fixed('PUT /reporting/v3/predefined-report-subscriptions', '/reporting/v3/predefined-report-subscriptions', '{"reportDefinitionName":"FundingDetailClass","subscriptionType":"CLASSIC"}'),
  owned('DELETE /reporting/v3/report-subscriptions/:reportName', async (org) => `/reporting/v3/report-subscriptions/${await reportSubscription(org)}`, '/reporting/v3/report-subscriptions/No_Such_Report'),
  fixed('POST /reporting/v3/reports', '/reporting/v3/reports', JSON.stringify(ONE_TIME)),
  fixed('GET /reporting/v3/reports', '/reporting/v3/reports?startTime=2026-01-20T00:00:00Z&endTime=2026-01-21T00:00:00Z&timeQueryType=reportTimeFrame'),
  owned('GET /reporting/v3/reports/:reportId', async (org) => `/reporting/v3/reports/${prepared.reportIds[org]}`, '/reporting/v3/reports/00000000-0000-4000-8000-000000000000'),
  fixed('GET /reporting/v3/report-downloads', '/reporting/v3/report-downloads?reportName=Security_Report&reportDate=2026-01-20'),
  ...ON_DEMAND,
  fixed('GET /sandbox/v1/clock', '/sandbox/v1/clock'),
  // The sandbox clock only moves forward: each call a minute further.
  fixed('POST /sandbox/v1/clock', '/sandbox/v1/clock', () => JSON.stringify({ to: new Date(Date.UTC(2026, 1, 1, 10) + ++made * 60_000).toISOString() })),
  fixed('POST /sandbox/v1/events', '/sandbox/v1/events', '{"eventType":"reporting.report.no-data"}'),
  fixed('POST /kms/egress/v2/keys-sym', '/kms/egress/v2/keys-sym', '{}'),
  fixed('POST /kms/egress/v2/keys-asym', '/kms/egress/v2/keys-asym', JSON.stringify({ keyInformation: { pub: MLE_PUB } })),
  owned('GET /notification-subscriptions/v2/products/:organizationId', async (org) => `/notification-subscriptions/v2/products/${org}`, '/notification-subscriptions/v2/products/nosuchorg'),
  fixed(`POST ${V2_WEBHOOK}`, V2_WEBHOOK, JSON.stringify(WEBHOOK)),
  fixed(`GET ${V2_WEBHOOK}`, V2_WEBHOOK),
  owned(`GET ${V2_WEBHOOK}/:webhookId`, async (org) => `${V2_WEBHOOK}/${await webhook(org)}`, `${V2_WEBHOOK}/no-such-webhook`),
  owned(`PATCH ${V2_WEBHOOK}/:webhookId`, async (org) => `${V2_WEBHOOK}/${await webhook(org)}`, `${V2_WEBHOOK}/no-such-webhook`, '{"description":"patched"}'),
  owned(`PUT ${V2_WEBHOOK}/:webhookId/status`, async (org) => `${V2_WEBHOOK}/${await webhook(org)}/status`, `${V2_WEBHOOK}/no-such-webhook/status`, '{"status":"INACTIVE"}'),
  owned(`DELETE ${V2_WEBHOOK}/:webhookId`, async (org) => `${V2_WEBHOOK}/${await webhook(org)}`, `${V2_WEBHOOK}/no-such-webhook`),
  owned('POST /notification-subscriptions/v1/webhooks/:webhookId', async (org) => `/notification-subscriptions/v1/webhooks/${await webhook(org)}`, '/notification-subscriptions/v1/webhooks/no-such-webhook', '{}'),
  owned('POST /nrtf/v1/webhooks/:webhookId/replays', async (org) => `/nrtf/v1/webhooks/${await webhook(org)}/replays`, '/nrtf/v1/webhooks/no-such-webhook/replays', REPLAY),
  owned('POST /webhooks/:webhookId/replays', async (org) => `/webhooks/${await webhook(org)}/replays`, '/webhooks/no-such-webhook/replays', REPLAY),
  fixed('GET /webhooks/v1/notifications', '/webhooks/v1/notifications'),
  owned('GET /webhooks/v1/notifications/:notificationId', async (org) => `/webhooks/v1/notifications/${prepared.notificationIds[org]}`, '/webhooks/v1/notifications/no-such-notification'),
  fixed('POST /webhooks/v1/events', '/webhooks/v1/events', '{"eventType":"invoicing.customer.invoice.paid","data":{}}'),
]

/** The route's call for the organization acted for (testrest unless told). */
export const requestFor = (route: MerchantRoute, org = 'testrest') => route.request(org)

/** The call's path with a query parameter added. */
export const withQuery = (request: MerchantRequest, query: string) => `${request.path}${request.path.includes('?') ? '&' : '?'}${query}`

/** The route by its name (a test of one route in particular). */
export function merchantRoute(route: string): MerchantRoute {
  const found = MERCHANT_ROUTES.find((r) => r.route === route)
  if (!found) throw new Error(`no merchant route ${route}`)
  return found
}

/**
 * Readies a security-suite app (its clock at 2026-02-01T09:00Z, the probe mounted): in every organization the suites
 * act for and in another tenant's, the subscription the GET by name reads, a completed one-time report for its
 * details and download, a webhook signing key (a webhook subscription needs one) and a notification in the delivery log.
 */
export async function prepareSecurityApp(t: TestApp): Promise<void> {
  prepared.app = t
  const { reporting, webhooks } = t.app.services
  for (const org of ORGANIZATIONS) {
    await reporting.subscriptions.put(org, { ...SUBSCRIPTION, reportName: `Security_Probe_${org}` })
    prepared.reportIds[org] = (await reporting.reports.createOneTime(org, ONE_TIME)).reportId
    await webhooks.keys.save(acting(org), {})
    await webhook(org)
    await webhooks.events.publish({ eventType: 'invoicing.customer.invoice.paid', organizationId: org, data: {} })
    prepared.notificationIds[org] = (await webhooks.notifications.list({ organizationIds: [org], limit: 1 }))[0]!.notificationId
  }
  await t.app.services.jobs.runDue()
}

export const AUTH_FAILED = { response: { rmsg: 'Authentication Failed' } }
/** Admitted: the route's own answer (200, 201 or 202, or 304 for a PUT that changes nothing). */
export const expectAllowed = (res: Response) => expect([200, 201, 202, 304], res.text).toContain(res.status)
export const expectRefused = (res: Response) => {
  expect(res.status, res.text).toBe(401)
  expect(res.json).toEqual(AUTH_FAILED)
}
