// The merchant API family through the shared security suite, HTTP Signature part (the JWT and OAuth bearer parts are
// security-jwt.test.ts and security-oauth.test.ts, replays security-replay.test.ts): every route behind the family's
// gateway (test/support/security/merchant-routes.ts), the test-only probe included, against every way of not being
// allowed, and every route that names something of an organization's own answering another tenant's as unknown.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders, type SignOptions } from '../support/reporting.js'
import { MERCHANT_ROUTES, ON_DEMAND, expectAllowed, expectRefused, prepareSecurityApp, probe, requestFor, withQuery, type MerchantRequest, type MerchantRoute } from '../support/security/merchant-routes.js'
import { describeSecuritySuite } from '../support/security/suite.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe] })
  await prepareSecurityApp(t)
})
afterAll(() => t.close())

/** Sends the call signed (by testrest's key unless told). */
const sign = (request: MerchantRequest, o: Partial<SignOptions> = {}) => signedCall(t, { ...request, key: TESTREST_KEY, ...o })
/** Sends the route's call for the organization (testrest unless told), signed. */
const send = async (route: MerchantRoute, o: Partial<SignOptions> = {}, org?: string) => sign(await requestFor(route, org), o)
/** Sends the route's call with these headers and no signature. */
async function unsigned(route: MerchantRoute, headers: Record<string, string | undefined>) {
  const { method, path, body } = await requestFor(route)
  return t.call(method, path, { headers: { 'x-svc-key': undefined, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body })
}
const signature = (key: typeof TESTREST_KEY) => (route: MerchantRoute) => send(route, { key })

describeSecuritySuite<MerchantRoute>({
  family: 'merchant API (HTTP Signature)',
  routes: MERCHANT_ROUTES,
  allowed: (route) => send(route),
  refusals: {
    'no credential': (route) => unsigned(route, {}),
    'wrong secret': signature({ ...TESTREST_KEY, secret: OTHER_KEY.secret }),
    'unknown credential': signature({ ...TESTREST_KEY, id: randomUUID() }),
    async 'revoked credential'(route) {
      const { key, secret } = await t.app.services.reportingKeys.create('testrest')
      const fresh = { id: key.id, secret, org: 'testrest' }
      expectAllowed(await send(route, { key: fresh }))
      await t.app.services.reportingKeys.revoke(key.id)
      return send(route, { key: fresh })
    },
    // A banking session token, as it is and as a bearer token.
    async 'another family'(route) {
      const login = await t.call('POST', '/v2/auth?v=1', {
        body: { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } },
      })
      const token = login.json.loginResponse.tokens[0].value as string
      return [await unsigned(route, { authorization: token }), await unsigned(route, { authorization: `Bearer ${token}` })]
    },
  },
  expectAllowed,
  expectRefused,
  tenancy: {
    applies: (route) => route.unknown !== undefined,
    other: async (route) => sign(await requestFor(route, 'othermerchant')),
    unknown: (route) => sign(route.unknown!()),
    expectUnknown: (res) => {
      expect(res.status, res.text).toBe(404)
      expect(res.json.reason).toBe('NOT_FOUND')
    },
    comparable: (res) => ({ status: res.status, body: { ...res.json, submitTimeUtc: undefined } }),
  },
  cases: [
    {
      title: 'refuses a stale and a future date (over five minutes off the server clock)',
      async run(route) {
        const now = t.clock.now().getTime()
        expectRefused(await send(route, { date: new Date(now - 5 * 60_000 - 2000) }))
        expectRefused(await send(route, { date: new Date(now + 5 * 60_000 + 2000) }))
        expectAllowed(await send(route, { date: new Date(now - 4 * 60_000) }))
      },
    },
    {
      title: 'refuses a signature made for another host than the one received',
      async run(route) {
        const request = await requestFor(route)
        const headers = signedHeaders({ ...request, key: TESTREST_KEY, date: t.clock.now() })
        expectRefused(await t.call(request.method, request.path, { headers: { ...headers, host: 'api.cybersource.com' }, body: request.body }))
      },
    },
    {
      title: "refuses a key signing for a merchant outside its organization's tree",
      async run(route) {
        expectRefused(await send(route, { key: OTHER_KEY, merchantId: 'testrest' }))
        expectRefused(await send(route, { key: TESTREST_KEY, merchantId: 'testrest_two' }))
      },
    },
    {
      title: "refuses another tenant's organizationId exactly as an unknown one",
      async run(route) {
        const request = await requestFor(route)
        const answers: Response[] = []
        for (const org of ['othermerchant', 'nosuchorg', 'testrest_two', 'testrest_acct']) answers.push(await sign({ ...request, path: withQuery(request, `organizationId=${org}`) }))
        for (const res of answers) {
          expect(res.status).toBe(404)
          expect({ ...res.json, submitTimeUtc: undefined }).toEqual({ ...answers[1]!.json, submitTimeUtc: undefined })
        }
      },
    },
    {
      title: "allows a descendant's organizationId, for the account's key and for its meta-key signature",
      async run(route) {
        const mine = await requestFor(route, 'testrest')
        expectAllowed(await sign({ ...mine, path: withQuery(mine, 'organizationId=testrest') }, { key: ACCT_KEY }))
        const below = await requestFor(route, 'testrest_two')
        expectAllowed(await sign({ ...below, path: withQuery(below, 'organizationId=testrest_two') }, { key: ACCT_KEY, merchantId: 'testrest_two' }))
      },
    },
  ],
})

describe('a partner on the on-demand reports', () => {
  /** Every organization an answer names (merchant ids, request ids' owners). */
  const named = (res: Response): Set<string> => new Set([...res.text.matchAll(/"(?:cybersourceMerchantId|merchantId|accountId|organizationId)":"([^"]+)"/g)].map((m) => m[1]!))

  it.each(ON_DEMAND.map((r) => [r.route, r] as const))("%s: reads each of its merchants, and never another tenant's", async (_name, route) => {
    const request = await requestFor(route)
    for (const merchant of ['testrest', 'testrest_two']) {
      const res = await sign({ ...request, path: withQuery(request, `organizationId=${merchant}`) }, { key: ACCT_KEY })
      expect(res.status, merchant).toBe(200)
      for (const org of named(res)) expect(['testrest_acct', merchant]).toContain(org)
    }
    const other = await sign({ ...request, path: withQuery(request, 'organizationId=othermerchant') }, { key: ACCT_KEY })
    expect(other.status).toBe(404)
    expect(other.json.details).toEqual([{ field: 'organizationId', reason: 'no such organization' }])
  })

  it("breaks payment batch summaries down over its own merchants only; another tenant's key sees only itself", async () => {
    const path = `${(await requestFor(ON_DEMAND[2]!)).path}&rollUp=week&breakdown=all_merchant`
    const partner = await signedCall(t, { method: 'GET', path, key: ACCT_KEY })
    expect([...named(partner)].sort()).toEqual(['testrest', 'testrest_acct', 'testrest_two'])
    const other = await signedCall(t, { method: 'GET', path, key: OTHER_KEY })
    expect([...named(other)]).toEqual(['othermerchant'])
  })
})

describe('the merchant API gateway', () => {
  const PROBE_GET: MerchantRequest = { method: 'GET', path: '/reporting/v3/probe' }
  const PROBE_POST: MerchantRequest = { method: 'POST', path: '/reporting/v3/probe', body: '{"name":"x"}' }

  it('refuses a body that does not match its digest, and a digest of another body', async () => {
    const headers = signedHeaders({ ...PROBE_POST, key: TESTREST_KEY, date: t.clock.now() })
    expectRefused(await t.call('POST', PROBE_POST.path, { headers, body: '{"name":"y"}' }))
    expectRefused(await sign(PROBE_POST, { digest: 'SHA-256=' + Buffer.alloc(32).toString('base64') }))
  })

  it('checks the signature before the body: a malformed body with a bad signature is 401, with a good one 400', async () => {
    expectRefused(await sign({ ...PROBE_POST, body: '{"name":' }, { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } }))
    const res = await sign({ ...PROBE_POST, body: '{"name":' })
    expect(res.status).toBe(400)
    expect(res.json.reason).toBe('INVALID_DATA')
  })

  it('resolves the acting organization: the signed merchant, a descendant named in the query or the body', async () => {
    const scheme = 'http_signature'
    expect((await sign(PROBE_GET)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme })
    expect((await sign({ ...PROBE_GET, path: '/reporting/v3/probe?organizationId=testrest_two' }, { key: ACCT_KEY })).json).toEqual({ organizationId: 'testrest_two', authenticatedId: 'testrest_acct', scheme })
    expect((await sign(PROBE_GET, { key: ACCT_KEY, merchantId: 'testrest' })).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme })
    const posted = await sign({ ...PROBE_POST, body: '{"name":"n","organizationId":"testrest"}' }, { key: ACCT_KEY })
    expect(posted.json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest_acct', scheme, name: 'n' })
  })

  it("converts query values to their declared types on a route whose schema the gateway adds organizationId to", async () => {
    const res = await sign({ ...PROBE_GET, path: '/reporting/v3/probe?limit=10&organizationId=testrest' })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'http_signature', limit: 10 })
    const bad = await sign({ ...PROBE_GET, path: '/reporting/v3/probe?limit=ten' })
    expect(bad.status).toBe(400)
    expect(bad.json.reason).toBe('INVALID_DATA')
  })

  it('answers an unknown path under /reporting/v3 only after authentication', async () => {
    expectRefused(await t.call('GET', '/reporting/v3/nothing-here', { headers: { 'x-svc-key': undefined } }))
    const res = await signedCall(t, { method: 'GET', path: '/reporting/v3/nothing-here', key: TESTREST_KEY })
    expect(res.status).toBe(404)
    expect(res.json.reason).toBe('NOT_FOUND')
  })

  it('counts failures by reason in an info log line that holds no secret', async () => {
    await sign({ method: 'GET', path: '/reporting/v3/report-definitions' }, { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } })
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
