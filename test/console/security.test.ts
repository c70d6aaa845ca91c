// The console's routes through the shared security suite: each page and form signed out, with a malformed or unknown
// session cookie, after the session went idle, after sign-out and after the user was revoked (a page leads to the
// sign-in page, a form is refused 401); every form without its CSRF token or with another session's (403); and
// another merchant's report or subscription answered exactly as one nobody has (404).
import { afterAll, beforeAll, expect } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { ConsoleBrowser, csrfOf } from '../support/console.js'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders } from '../support/reporting.js'
import { createReport, settle } from '../support/reports.js'
import { CONSOLE_ROUTES, type ConsoleRoute } from '../support/security/console-routes.js'
import { describeSecuritySuite } from '../support/security/suite.js'

let t: TestApp
let mine: string
let theirs: string
let fresh = 0
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')), env: { REQUEST_LOG: 'on' } })
  const rows: Transaction[] = ['testrest', 'othermerchant'].map((organizationId, i) => ({
    organizationId,
    requestId: `9200000000000000000${i}`,
    type: 'sale',
    requestTime: '2020-03-01T10:00:00.000Z',
    currency: 'USD',
    amount: '1.50',
    fields: {},
  }))
  await insertTransactions(t.db.kysely, t.db.dialect, rows)
  const body = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], timezone: 'GMT', reportName: 'sec', reportStartTime: '2020-03-01T00:00:00Z', reportEndTime: '2020-03-02T00:00:00Z' }
  mine = String((await createReport(t, body)).headers.location).split('/').pop()!
  theirs = String((await createReport(t, body, OTHER_KEY)).headers.location).split('/').pop()!
  await settle(t)
  expect((await subscription(OTHER_KEY, 'theirs')).status).toBe(200)
  // A call of each merchant in the request log, by correlation id.
  for (const [key, id] of [[TESTREST_KEY, 'sec-mine'], [OTHER_KEY, 'sec-theirs']] as const) {
    const path = '/reporting/v3/report-definitions'
    expect((await t.call('GET', path, { headers: { ...signedHeaders({ method: 'GET', path, key, date: t.clock.now() }), 'x-correlationid': id } })).status).toBe(200)
  }
})
afterAll(() => t.close())

function subscription(key: typeof TESTREST_KEY, reportName: string) {
  const body = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName, reportFrequency: 'DAILY', timezone: 'GMT', startTime: '0300' }
  return signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(body), key })
}

/** The route's path and form naming `id`. */
function send(b: ConsoleBrowser, route: ConsoleRoute, id: string, csrf?: string): Promise<Response> {
  const path = route.path.replace('{id}', id)
  if (route.method === 'GET') return b.get(path) as Promise<Response>
  const form = Object.fromEntries(Object.entries(route.form!()).map(([k, v]) => [k, v === '{id}' ? id : v]))
  return b.post(path, csrf === undefined ? form : { csrf_token: csrf, ...form }) as Promise<Response>
}

async function signedIn(username = 'testrest', password = 'Testrest-1'): Promise<{ b: ConsoleBrowser; csrf: string }> {
  const b = new ConsoleBrowser(t)
  expect((await b.signIn(username, password)).status).toBe(303)
  return { b, csrf: csrfOf((await b.get('/console')).text) }
}

/** testrest's own identifier for the route: its report, or a subscription made for this call (a form may delete it). */
async function ownId(route: ConsoleRoute): Promise<string> {
  if (route.names === 'report') return mine
  if (route.names === 'key') return (await t.app.services.reportingKeys.create('testrest')).key.id
  if (route.names === 'request') return 'sec-mine'
  if (route.names !== 'subscription') return ''
  const name = `own_${++fresh}`
  expect((await subscription(TESTREST_KEY, name)).status).toBe(200)
  return name
}

/** The route sent with a session that no longer works (or none): each refusal's way. */
const withCookie = (value: string | undefined) => async (route: ConsoleRoute) => {
  const b = new ConsoleBrowser(t)
  if (value !== undefined) b.cookies.set('finapi_console', value)
  return send(b, route, await ownId(route), 'A'.repeat(64))
}

describeSecuritySuite<ConsoleRoute>({
  family: 'console',
  routes: CONSOLE_ROUTES,
  async allowed(route) {
    const { b, csrf } = await signedIn()
    return send(b, route, await ownId(route), csrf)
  },
  refusals: {
    'no credential': withCookie(undefined),
    'malformed credential': withCookie('not a session'),
    'unknown credential': withCookie('B'.repeat(43)),
    async 'expired credential'(route) {
      const { b, csrf } = await signedIn()
      t.clock.advance(31 * 60_000)
      return send(b, route, await ownId(route), csrf)
    },
    async 'revoked credential'(route) {
      // Signed out (the row revoked), and a merchant user revoked while signed in.
      const out = await signedIn()
      const token = new Map(out.b.cookies)
      await out.b.post('/console/sign-out', { csrf_token: out.csrf })
      const [username, password] = await leaver()
      const gone = await signedIn(username, password)
      await t.app.services.identity.revokeCredential(credentials.get(username)!)
      return [await send(withJar(token), route, await ownId(route), out.csrf), await send(gone.b, route, await ownId(route), gone.csrf)]
    },
  },
  expectAllowed(res, route) {
    expect(res.status, res.text.slice(0, 500)).toBe(route.allowed)
    if (route.allowed === 303) expect(res.headers.location).toMatch(/^\/console/)
  },
  expectRefused(res, _refusal, route) {
    if (route.method === 'GET') {
      expect(res.status).toBe(303)
      expect(res.headers.location).toBe('/console/sign-in')
    } else {
      expect(res.status).toBe(401)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
      expect(res.text).toContain('not signed in')
    }
    expect(res.headers['cache-control']).toBe('no-store')
  },
  tenancy: {
    applies: (route) => route.names !== undefined,
    async other(route) {
      const { b, csrf } = await tenant()
      return send(b, route, { report: theirs, subscription: 'theirs', key: OTHER_KEY.id, request: 'sec-theirs' }[route.names!], csrf)
    },
    async unknown(route) {
      const { b, csrf } = await tenant()
      return send(b, route, route.names === 'report' || route.names === 'key' ? '00000000-0000-4000-8000-000000000000' : 'nobody_has_this', csrf)
    },
    expectUnknown(res) {
      expect(res.status, res.text.slice(0, 300)).toBe(404)
      expect(res.text).toContain('not yours to see')
    },
  },
  cases: [
    {
      title: 'refuses a form without its CSRF token, or with another session’s, with 403 and a page saying so',
      applies: (route) => route.method === 'POST',
      async run(route) {
        const { b } = await signedIn()
        const other = await signedIn()
        for (const res of [await send(b, route, await ownId(route)), await send(b, route, await ownId(route), other.csrf)]) {
          expect(res.status).toBe(403)
          expect(res.text).toContain('did not come from this console')
        }
      },
    },
  ],
})

let leavers = 0
async function leaver(): Promise<[string, string]> {
  const username = `sec-leaver-${++leavers}`
  const { user, password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest', username })
  credentials.set(username, user.credentialId)
  return [username, password]
}
const credentials = new Map<string, string>()

/** A browser holding these cookies. */
function withJar(cookies: Map<string, string>): ConsoleBrowser {
  const b = new ConsoleBrowser(t)
  for (const [k, v] of cookies) b.cookies.set(k, v)
  return b
}

/** A signed-in session of testrest for the tenancy checks (the error page shows nothing of the session, so two compare). */
const tenant = () => signedIn()
