// What the reporting security tests share: every /reporting/v3 route with a request that is allowed when
// authenticated, the test-only probe (mounted inside the reporting scope, behind the same gateway) that echoes the
// organization the gateway resolved, and what an admitted and a refused answer look like.
import { Type } from 'typebox'
import { expect } from 'vitest'
import type { ReportingRoutes } from '../../src/reporting/feature.js'
import { actingOrganization } from '../../src/reporting/gateway.js'
import type { Response, TestApp } from './harness.js'

/** Echoes the organization the gateway resolved, for GET and for a POST with a JSON body. */
export const probe: ReportingRoutes = async (scope) => {
  const Echo = Type.Object({ organizationId: Type.String(), authenticatedId: Type.String(), scheme: Type.String(), name: Type.Optional(Type.String()) })
  scope.get('/probe', { schema: { operationId: 'reportingProbeGet', tags: ['probe'], response: { 200: Echo } } }, async (request) => {
    const acting = actingOrganization(request)
    return { organizationId: acting.id, authenticatedId: acting.authenticatedId, scheme: acting.scheme }
  })
  scope.post(
    '/probe',
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
  path: string
  body?: string
}

export const ROUTES: Route[] = [
  { name: 'GET /report-definitions', method: 'GET', path: '/reporting/v3/report-definitions' },
  { name: 'GET /report-definitions/{name}', method: 'GET', path: '/reporting/v3/report-definitions/TransactionRequestClass' },
  { name: 'GET /probe', method: 'GET', path: '/reporting/v3/probe' },
  { name: 'POST /probe', method: 'POST', path: '/reporting/v3/probe', body: '{"name":"x"}' },
  { name: 'GET /report-subscriptions', method: 'GET', path: '/reporting/v3/report-subscriptions' },
  { name: 'GET /report-subscriptions/{name}', method: 'GET', path: '/reporting/v3/report-subscriptions/Security_Probe' },
  { name: 'PUT /report-subscriptions', method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify({ reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Security_Probe', reportFields: ['VERes.Enrolled'], timezone: 'GMT' }) },
  { name: 'PUT /predefined-report-subscriptions', method: 'PUT', path: '/reporting/v3/predefined-report-subscriptions', body: '{"reportDefinitionName":"FundingDetailClass","subscriptionType":"CLASSIC"}' },
]

/** A security-suite app: the probe mounted, and the subscription the GET by name reads in every organization acted for. */
export async function prepareSecurityApp(t: TestApp): Promise<void> {
  for (const org of ['testrest', 'testrest_two']) {
    await t.app.services.reporting.subscriptions.put(org, { reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Security_Probe', reportFields: ['VERes.Enrolled'], timezone: 'GMT' })
  }
}

export const AUTH_FAILED = { response: { rmsg: 'Authentication Failed' } }
/** Admitted: the route's own answer (200, or 201/304 for a PUT that creates or changes nothing). */
export const expectAllowed = (res: Response) => expect([200, 201, 304], res.text).toContain(res.status)
export const expectRefused = (res: Response) => {
  expect(res.status, res.text).toBe(401)
  expect(res.json).toEqual(AUTH_FAILED)
}
/** The route's path with a query parameter added. */
export const withQuery = (route: Route, query: string) => `${route.path}${route.path.includes('?') ? '&' : '?'}${query}`
