// The console's routes through the shared security suite: each page and form signed out, with a malformed or unknown
// session cookie, after the session went idle, after sign-out and after the user was revoked (a page leads to the
// sign-in page, a form is refused 401); every form without its CSRF token or with another session's (403); and
// another merchant's report, subscription, webhook subscription, notification or signing key answered exactly as one
// nobody has (404). The operators' routes are sent as a merchant user with the operator role: a merchant user
// without it naming a real record, and an operator naming one nobody has, answer alike (404), and every one of them
// answers a merchant user who is not an operator as a page that does not exist.
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
let operatorPassword: string
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')), env: { REQUEST_LOG: 'on' } })
  operatorPassword = (await t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'sec-operator' })).password
  await t.app.services.merchantUsers.setOperator('sec-operator', true)
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
  // Webhook subscriptions, a notification and signing keys: testrest's (the ones a test makes are fresh) and another merchant's.
  const wh = t.app.services.webhooks
  await wh.keys.save(TESTREST, {})
  webhooks.theirKey = (await wh.keys.save(OTHER, {})).keyInformation.keyId
  webhooks.theirs = (await wh.subscriptions.create(OTHER, HOOK)).webhookId
  webhooks.theirNotification = await wh.subscriptions.queueTest(OTHER, webhooks.theirs, 'test')
  webhooks.mine = (await wh.subscriptions.create(TESTREST, HOOK)).webhookId
})

const TESTREST = { id: 'testrest', authenticatedId: 'testrest' }
const OTHER = { id: 'othermerchant', authenticatedId: 'othermerchant' }
const HOOK = { products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.send'] }], webhookUrl: 'http://127.0.0.1:9/hook' }
const webhooks = { mine: '', theirs: '', theirNotification: '', theirKey: '' }
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
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

/** A session that may send the route: the operator's for an operators' route, testrest's for any other. */
const signedInFor = (route: ConsoleRoute) => (route.operator ? signedIn('sec-operator', operatorPassword) : signedIn())

/** testrest's own identifier for the route: its report, or a subscription made for this call (a form may delete it). */
async function ownId(route: ConsoleRoute): Promise<string> {
  if (route.names === 'report') return mine
  const services = t.app.services
  if (route.names === 'key') return (await services.reportingKeys.create('testrest')).key.id
  if (route.names === 'request') return 'sec-mine'
  const wh = t.app.services.webhooks
  if (route.names === 'webhook') return (await wh.subscriptions.create(TESTREST, HOOK)).webhookId
  if (route.names === 'notification') return wh.subscriptions.queueTest(TESTREST, webhooks.mine, 'test')
  if (route.names === 'signingKey') return (await wh.keys.save(TESTREST, {})).keyInformation.keyId
  if (route.names === 'merchant user') return (await services.merchantUsers.create({ organizationId: 'testrest', username: `sec-own-${++fresh}` })).user.id
  if (route.names === 'OAuth client') return (await services.oauth.clients.create({ name: `own ${++fresh}`, scopes: ['reporting'], redirectUris: [], public: false, organizationId: 'testrest' })).client.id
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
    const { b, csrf } = await signedInFor(route)
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
      // An operator sees every organization's records: the "other" here is a merchant user who is not an operator,
      // naming a record that exists.
      if (route.operator) {
        const { b, csrf } = await tenant()
        return send(b, route, await ownId(route), csrf)
      }
      const { b, csrf } = await tenant()
      const id = { report: theirs, subscription: 'theirs', key: OTHER_KEY.id, request: 'sec-theirs', webhook: webhooks.theirs, notification: webhooks.theirNotification, signingKey: webhooks.theirKey }[route.names as string]!
      return send(b, route, id, csrf)
    },
    async unknown(route) {
      const { b, csrf } = route.operator ? await signedInFor(route) : await tenant()
      const byName = ['subscription', 'request', 'merchant user', 'OAuth client'].includes(route.names!)
      return send(b, route, byName ? 'nobody_has_this' : UNKNOWN_ID, csrf)
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
        const { b } = await signedInFor(route)
        const other = await signedInFor(route)
        for (const res of [await send(b, route, await ownId(route)), await send(b, route, await ownId(route), other.csrf)]) {
          expect(res.status).toBe(403)
          expect(res.text).toContain('did not come from this console')
        }
      },
    },
    {
      title: 'answers a merchant user who is not an operator as a page that does not exist (404), and changes nothing',
      applies: (route) => route.operator === true,
      async run(route) {
        const { b, csrf } = await signedIn()
        const nowhere = await b.get('/console/no-such-page')
        expect(nowhere.status).toBe(404)
        const id = await ownId(route)
        const before = await records()
        const res = await send(b, route, id, csrf)
        expect(res.status).toBe(404)
        expect(res.text).toBe(nowhere.text)
        expect(await records()).toEqual(before)
      },
    },
  ],
})

/** What the operators' forms change: organizations, merchant users, reporting keys and OAuth clients with their states. */
async function records() {
  const s = t.app.services
  return JSON.stringify([await s.organizations.list(), await s.merchantUsers.list(), await s.reportingKeys.list(), await s.oauth.clients.list()])
}

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
