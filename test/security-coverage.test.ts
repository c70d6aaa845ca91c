// Every protected route is in the shared security suite: the routes a real app registers (Fastify's onRoute, through
// the harness) are each public, with why (test/support/security/coverage.ts), or in one family's suite table, which
// its security test files run through describeSecuritySuite. A route added without a suite entry fails here: the
// last test adds some to a throwaway app and sees the check name them.
import { readFileSync } from 'node:fs'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Feature } from '../src/platform/feature.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { checkCoverage, PUBLIC_ROUTES, SUITES } from './support/security/coverage.js'
import { probe } from './support/security/merchant-routes.js'

let t: TestApp
beforeAll(async () => {
  // As the merchant API's security suites start it: with the test-only probe, which its table lists.
  t = await startTestApp({ reportingRoutes: [probe] })
})
afterAll(() => t.close())

describe('the shared security suite', () => {
  it('covers every protected route the app registers, and lists no route the app does not have', () => {
    expect(t.routes.length).toBeGreaterThan(50)
    expect(checkCoverage(t.routes)).toEqual({ uncovered: [], stale: [], twice: [], unusedPublic: [] })
  })

  it('gives every public route a reason', () => {
    for (const { route, why } of PUBLIC_ROUTES) expect(why.length, route).toBeGreaterThan(10)
  })

  it.each(SUITES.flatMap((s) => s.files.map((file) => [s.family, file, s.table] as const)))('the %s suite is run by %s', (_family, file, table) => {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
    expect(source).toMatch(new RegExp(`describeSecuritySuite(<\\w+>)?\\(\\{[^]*?routes: ${table},`))
  })
})

describe('a route added without a suite entry', () => {
  let throwaway: TestApp
  beforeAll(async () => {
    // Three new protected routes: one behind banking's gateway, one behind the merchant API's, and a new family's.
    const console: Feature = {
      name: 'console',
      services: {},
      http: {
        prefixes: ['/console/v1'],
        async register(scope) {
          scope.get('/console/v1/widgets/:widgetId', { schema: { params: Type.Object({ widgetId: Type.String() }) } }, async () => ({}))
        },
      },
    }
    throwaway = await startTestApp({
      features: [async (v2) => void v2.get('/v2/statements', async () => ({}))],
      reportingRoutes: [probe, async (scope) => void scope.delete('/reporting/v3/report-definitions/:reportDefinitionName', async () => ({}))],
      extraFeatures: [console],
    })
  })
  afterAll(() => throwaway.close())

  it('is named by the check, each of them, and nothing else is', () => {
    expect(checkCoverage(throwaway.routes).uncovered).toEqual(['GET /v2/statements', 'DELETE /reporting/v3/report-definitions/:reportDefinitionName', 'GET /console/v1/widgets/:widgetId'])
  })

  it("is named when it shares a public route's path but not its method, or is a HEAD of a protected GET", () => {
    const routes = [
      { method: 'GET', url: '/health/live' },
      { method: 'HEAD', url: '/health/live' },
      { method: 'POST', url: '/health/live' },
      { method: 'HEAD', url: '/v2/accounts' },
    ]
    expect(checkCoverage(routes).uncovered).toEqual(['POST /health/live', 'HEAD /v2/accounts'])
  })
})
