// What the shared security suite must cover: every route the app registers is either public (listed below, with
// why) or in one family's suite table, run through describeSecuritySuite by the test files named beside it.
// test/security-coverage.test.ts checks a real app's routes against this; a new protected route with no suite entry
// fails it. To add a route: put it in its family's table (or, for a new family, a table and a security test file of
// its own, added to SUITES); only a route anyone may call belongs in PUBLIC_ROUTES.
import type { RegisteredRoute } from '../harness.js'
import { BANKING_ROUTES } from './banking-routes.js'
import { CONSOLE_ROUTES } from './console-routes.js'
import { MERCHANT_ROUTES } from './merchant-routes.js'
import { OAUTH_ROUTES } from './oauth-routes.js'
import type { SecuredRoute } from './suite.js'

export interface PublicRoute {
  /** `METHOD /path`, or `METHOD /prefix/*` for every route under the prefix; GET covers HEAD too. */
  route: string
  why: string
}

/** The routes anyone may call: no credential is asked for, so there is nothing for a security suite to refuse. */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { route: 'GET /', why: 'the home page: what the server is and where its documents are (and, in the sandbox, its published credentials)' },
  { route: 'GET /health/live', why: 'liveness, for orchestrators: answers ok and nothing else' },
  { route: 'GET /health/ready', why: 'readiness, for load balancers: whether the database answers' },
  { route: 'GET /metrics', why: 'Prometheus scraping: counters under closed labels, never a value from a request (docs/operations.md)' },
  { route: 'GET /openapi.json', why: 'the OpenAPI document' },
  { route: 'GET /docs', why: 'Swagger UI, the interactive documentation' },
  { route: 'GET /docs/*', why: "Swagger UI's static assets, and the document as JSON and YAML" },
  { route: 'GET /.well-known/oauth-authorization-server', why: 'OAuth server metadata (RFC 8414)' },
  // The consent pages are a browser's: a customer or merchant user signs in there; a cookie and a CSRF token guard
  // their forms (test/oauth/consent-page.test.ts, authorize.test.ts), and the client is named, never authenticated.
  { route: 'GET /oauth2/v3/authorize', why: 'the consent page: the authorization request, then sign-in' },
  { route: 'POST /oauth2/v3/authorize', why: "the consent page's sign-in and allow/deny forms" },
  { route: 'GET /oauth2/v3/assets/*', why: "the consent page's stylesheet and icon" },
  // The console's way in: the sign-in form is guarded by a CSRF token bound to a pre-session cookie, and by identity's
  // lockout and the consent page's throttle (test/console/sessions.test.ts); every other console route needs a session.
  { route: 'GET /console/sign-in', why: "the console's sign-in page" },
  { route: 'POST /console/sign-in', why: "the console's sign-in form: a merchant user's username and password" },
  { route: 'GET /console/assets/*', why: "the console's stylesheet" },
]

export interface Suite {
  family: string
  routes: readonly SecuredRoute[]
  /** The table's exported name, which each of the files passes to describeSecuritySuite. */
  table: string
  files: readonly string[]
}

/** Every family's suite: its table of protected routes, and the test files that run it. */
export const SUITES: readonly Suite[] = [
  { family: 'banking', routes: BANKING_ROUTES, table: 'BANKING_ROUTES', files: ['test/banking/security.test.ts'] },
  {
    family: 'merchant API',
    routes: MERCHANT_ROUTES,
    table: 'MERCHANT_ROUTES',
    files: ['test/merchant-api/security.test.ts', 'test/merchant-api/security-jwt.test.ts', 'test/merchant-api/security-oauth.test.ts'],
  },
  { family: 'OAuth', routes: OAUTH_ROUTES, table: 'OAUTH_ROUTES', files: ['test/oauth/security.test.ts'] },
  { family: 'console', routes: CONSOLE_ROUTES, table: 'CONSOLE_ROUTES', files: ['test/console/security.test.ts'] },
]

export interface Coverage {
  /** Registered, not public, and in no suite: a protected route nothing checks. */
  uncovered: string[]
  /** In a suite but not registered (renamed or removed): the suite tests nothing there. */
  stale: string[]
  /** In more than one family's suite. */
  twice: string[]
  /** Public entries that match no registered route. */
  unusedPublic: string[]
}

/** The registered routes as `METHOD /pattern`, without the HEAD twin Fastify adds to each GET (same handler and hooks). */
export function routeNames(registered: readonly RegisteredRoute[]): string[] {
  const names = new Set(registered.map((r) => `${r.method} ${r.url}`))
  return [...names].filter((name) => !(name.startsWith('HEAD ') && names.has(`GET ${name.slice(5)}`)))
}

/** Whether a public entry covers the route; one for GET covers HEAD too (what a GET answers, without the body). */
function matches(pattern: string, name: string): boolean {
  const candidates = name.startsWith('HEAD ') ? [name, `GET ${name.slice(5)}`] : [name]
  return candidates.some((n) => (pattern.endsWith('/*') ? n.startsWith(pattern.slice(0, -1)) : n === pattern))
}

/** Checks the registered routes against the suites and the public routes. */
export function checkCoverage(registered: readonly RegisteredRoute[], suites: readonly Suite[] = SUITES, publicRoutes: readonly PublicRoute[] = PUBLIC_ROUTES): Coverage {
  const names = routeNames(registered)
  const isPublic = (name: string) => publicRoutes.some((p) => matches(p.route, name))
  const secured = suites.flatMap((s) => s.routes.map((r) => r.route))
  return {
    uncovered: names.filter((name) => !isPublic(name) && !secured.includes(name)),
    stale: secured.filter((name) => !names.includes(name)),
    twice: secured.filter((name, i) => secured.indexOf(name) !== i),
    unusedPublic: publicRoutes.filter((p) => !names.some((name) => matches(p.route, name))).map((p) => p.route),
  }
}
