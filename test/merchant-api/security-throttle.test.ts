// The merchant API family's throttle (issue 19, item 8): MERCHANT_API_RATE_LIMIT_PER_MINUTE calls a minute per
// credential on every route behind the family's gateway (in the sandbox per credential and source address), answered
// 429 in the reporting error body with Retry-After. A flood from one key leaves other merchants answering; the refusal
// comes before the signature is checked (a bad signature over the limit is 429, not 401) and spends nothing (a write
// refused 429 is accepted once the window has passed); only verified calls are counted, so garbage under another's
// key id spends none of its allowance. Outcomes only: the fake clock stands still, so a window ends only when it is
// moved. The benchmark of the flood (another merchant's p99 while one floods) is bench/throttle.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders } from '../support/reporting.js'
import { makeJwt } from '../support/reporting-jwt.js'
import { MERCHANT_CLIENT, bearer, clientCredentialsToken } from '../support/reporting-oauth.js'
import { MERCHANT_ROUTES, expectRefused, prepareSecurityApp, probe } from '../support/security/merchant-routes.js'

const LIMIT = 5
const OTHER_ADDRESS = '127.0.0.2'
const READ = '/reporting/v3/report-definitions'

/** A 429 in the reporting shape, with Retry-After: the seconds left in the window. */
function expectThrottled(res: Response, retryAfter = '60') {
  expect(res.status, res.text).toBe(429)
  expect(res.headers['retry-after']).toBe(retryAfter)
  expect(res.json).toEqual({
    submitTimeUtc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    reason: 'TOO_MANY_REQUESTS',
    message: 'Too many requests',
    details: [{ reason: `too many calls with this credential; retry after ${retryAfter} seconds` }],
  })
}

const statuses = (answers: Response[]) => answers.map((a) => a.status).sort()

describe('the sandbox: per credential and source address', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe], env: { MERCHANT_API_RATE_LIMIT_PER_MINUTE: String(LIMIT) } })
    await prepareSecurityApp(t)
  })
  afterAll(() => t.close())
  // Each test starts a window of its own.
  const nextWindow = () => t.clock.advance(60_000)
  const read = (key = TESTREST_KEY, localAddress?: string, path = READ) => t.call('GET', path, { headers: signedHeaders({ method: 'GET', path, key, date: t.clock.now() }), localAddress })

  it("a flood from one key gets 429 in the reporting shape, on every route of the family, while another merchant's calls keep answering", async () => {
    nextWindow()
    const flood = await Promise.all(Array.from({ length: 30 }, () => read()))
    expect(statuses(flood)).toEqual([...Array<number>(LIMIT).fill(200), ...Array<number>(30 - LIMIT).fill(429)])
    for (const res of flood.filter((r) => r.status === 429)) expectThrottled(res)
    // The allowance is the key's across the family: reporting, the sandbox clock and events, webhook management,
    // keys, the delivery log and replays.
    for (const route of MERCHANT_ROUTES) {
      const request = await route.request('testrest')
      expectThrottled(await signedCall(t, { ...request, key: TESTREST_KEY }))
    }
    expectThrottled(await signedCall(t, { method: 'POST', path: '/nrtf/v1/webhooks/none/replays', body: '{}', key: TESTREST_KEY }))
    // Another merchant's signed calls, during and after the flood.
    const others = await Promise.all([...Array.from({ length: 3 }, () => read(OTHER_KEY)), ...Array.from({ length: 10 }, () => read())])
    expect(statuses(others.slice(0, 3))).toEqual([200, 200, 200])
    expect(statuses(others.slice(3))).toEqual(Array<number>(10).fill(429))
    expect((await read(OTHER_KEY)).status).toBe(200)
    // The window ends: the key answers again.
    t.clock.advance(45_000)
    expectThrottled(await read(), '15')
    t.clock.advance(15_000)
    expect((await read()).status).toBe(200)
  })

  it('refuses before the signature is checked, and spends nothing: a write refused 429 is accepted once the window has passed', async () => {
    nextWindow()
    for (let i = 0; i < LIMIT; i++) expect((await read()).status).toBe(200)
    // A wrong secret under the spent key: 429, so the signature was never looked at.
    expectThrottled(await t.call('GET', READ, { headers: signedHeaders({ method: 'GET', path: READ, key: { ...TESTREST_KEY, secret: OTHER_KEY.secret }, date: t.clock.now() }) }))
    const body = '{"eventType":"invoicing.customer.invoice.paid","data":{"invoiceNumber":"later"}}'
    const headers = signedHeaders({ method: 'POST', path: '/webhooks/v1/events', body, key: TESTREST_KEY, date: t.clock.now() })
    expectThrottled(await t.call('POST', '/webhooks/v1/events', { headers, body }))
    // The same request a minute later (its date still in the five minutes): not a replay, since it was never admitted.
    nextWindow()
    expect((await t.call('POST', '/webhooks/v1/events', { headers, body })).status).toBe(201)
  })

  it('counts a verified write before its signature is spent: writes of one flood refused 429 are accepted in the next window', async () => {
    nextWindow()
    const writes = Array.from({ length: LIMIT + 3 }, (_, i) => {
      const body = JSON.stringify({ eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: `flood-${i}` } })
      return { body, headers: signedHeaders({ method: 'POST', path: '/webhooks/v1/events', body, key: TESTREST_KEY, date: t.clock.now() }) }
    })
    const send = (w: (typeof writes)[number]) => t.call('POST', '/webhooks/v1/events', w)
    // All at once. On PostgreSQL they are verified side by side, so the count after verification is what refuses the
    // last three (this fails there when a signature is spent before it is counted); on SQLite each is verified to
    // its end before the next is read, and the check before verification refuses them.
    const first = await Promise.all(writes.map(send))
    expect(statuses(first)).toEqual([...Array<number>(LIMIT).fill(201), 429, 429, 429])
    nextWindow()
    const refused = writes.filter((_, i) => first[i]!.status === 429)
    expect((await Promise.all(refused.map(send))).map((r) => r.status)).toEqual([201, 201, 201])
  })

  it("counts only verified calls: garbage under another merchant's key id spends none of its allowance", async () => {
    nextWindow()
    const forged = { ...OTHER_KEY, secret: TESTREST_KEY.secret }
    for (let i = 0; i < 3 * LIMIT; i++) expectRefused(await read(forged))
    for (let i = 0; i < LIMIT; i++) expect((await read(OTHER_KEY)).status).toBe(200)
    expectThrottled(await read(OTHER_KEY))
  })

  it('counts a key per source address: a flood from one address leaves the same key answering from another', async () => {
    nextWindow()
    for (let i = 0; i < LIMIT; i++) expect((await read()).status).toBe(200)
    expectThrottled(await read())
    for (let i = 0; i < LIMIT; i++) expect((await read(TESTREST_KEY, OTHER_ADDRESS)).status).toBe(200)
    expectThrottled(await read(TESTREST_KEY, OTHER_ADDRESS))
  })

  it("throttles the JWT (a shared secret's counts against its reporting key) and the OAuth bearer token", async () => {
    nextWindow()
    const jwt = () => makeJwt({ method: 'GET', path: READ, signer: { key: TESTREST_KEY }, issuer: 'testrest', now: t.clock.now() })
    const withJwt = () => t.call('GET', READ, { headers: { 'x-svc-key': undefined, authorization: `Bearer ${jwt()}` } })
    for (let i = 0; i < 3; i++) expect((await read()).status).toBe(200)
    for (let i = 0; i < LIMIT - 3; i++) expect((await withJwt()).status).toBe(200)
    expectThrottled(await withJwt())
    expectThrottled(await read())

    const token = (await clientCredentialsToken(t, MERCHANT_CLIENT)).access_token
    const withToken = () => t.call('GET', READ, { headers: bearer(token) })
    for (let i = 0; i < LIMIT; i++) expect((await withToken()).status).toBe(200)
    expectThrottled(await withToken())
    // Another token of the same client for the same organization shares the allowance.
    const second = (await clientCredentialsToken(t, MERCHANT_CLIENT)).access_token
    expectThrottled(await t.call('GET', READ, { headers: bearer(second) }))
  })

  it('documents the 429 on every operation of the family', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content: Record<string, { schema: { properties: { reason: { enum: string[] } } } }> }> }>> }
    const family = Object.entries(doc.paths).filter(([path]) => /^\/(reporting|sandbox\/v1|notification-subscriptions|kms|nrtf|webhooks)\//.test(path))
    expect(family.length).toBeGreaterThan(20)
    for (const [path, methods] of family) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.responses['429']?.content['application/json']?.schema.properties.reason.enum, `${method} ${path}`).toEqual(['TOO_MANY_REQUESTS'])
      }
    }
  })
})

describe('production: per credential, from every address', () => {
  let t: TestApp
  let key: { id: string; secret: string; org: string }
  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), env: { MODE: 'production', SECRETS_KEY: 'throttle-test-secrets-key-0123456789', MERCHANT_API_RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'warn' } })
    await t.app.services.organizations.create({ id: 'acme_acct', type: 'account' })
    await t.app.services.organizations.create({ id: 'acme', type: 'merchant', parentId: 'acme_acct' })
    const created = await t.app.services.reportingKeys.create('acme')
    key = { id: created.key.id, secret: created.secret, org: 'acme' }
  })
  afterAll(() => t.close())

  it('one allowance per key, whatever the address', async () => {
    const read = (localAddress?: string) => t.call('GET', READ, { headers: signedHeaders({ method: 'GET', path: READ, key, date: t.clock.now() }), localAddress })
    for (let i = 0; i < LIMIT; i++) expect((await read(i % 2 ? OTHER_ADDRESS : undefined)).status).toBe(200)
    expectThrottled(await read())
    expectThrottled(await read(OTHER_ADDRESS))
  })
})
