// The reporting security suite, HTTP Signature part (the JWT and OAuth bearer parts are security-jwt.test.ts and
// security-oauth.test.ts): every /reporting/v3 route and the sandbox clock (/sandbox/v1, the same gateway), the
// test-only probe POST (mounted inside the reporting scope, behind the same gateway) included, and the webhook
// routes behind the same gateway, against every way of not being allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders, type SignOptions } from '../support/reporting.js'
import { ON_DEMAND, ROUTES, bodyOf, expectAllowed, expectRefused, pathOf, prepareSecurityApp, probe, withQuery, type Route } from '../support/reporting-routes.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe] })
  await prepareSecurityApp(t)
})
afterAll(() => t.close())

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

  it("converts query values to their declared types on a route whose schema the gateway adds organizationId to", async () => {
    const res = await send(ROUTES[2]!, { path: '/reporting/v3/probe?limit=10&organizationId=testrest' })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'http_signature', limit: 10 })
    const bad = await send(ROUTES[2]!, { path: '/reporting/v3/probe?limit=ten' })
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
