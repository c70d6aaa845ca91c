// Issue 11 (5): everyone shares the sandbox key and the published sandbox customers, so the sandbox throttles and
// locks out per source address as well as per key and credential: a flood or a guessing run denies only its
// sender. Production keeps one allowance per key and one lock per credential. Distinct sources are real
// connections from other loopback addresses (127.0.0.2, 127.0.0.3), which Linux routes to lo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importData } from '../../src/banking/accounts/import.js'
import { sandboxDataset } from '../../src/banking/sandbox-data.js'
import { createIdentityImport } from '../../src/identity/import.js'
import { LOCKOUT_MS, MAX_FAILED_ATTEMPTS } from '../../src/identity/service.js'
import { CUSTOMER_1, expectStatus, loginBody } from '../support/banking.js'
import { call, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { openAuthorize, pkce, postForm, sandboxRequest, signIn } from '../support/oauth.js'
import { probeFeature } from '../support/probe.js'

// Low enough to flood quickly, high enough that only the flood test meets the throttle.
const LIMIT = 30
const OTHER = '127.0.0.2'
const THIRD = '127.0.0.3'

describe('sandbox mode', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ features: [probeFeature], env: { SANDBOX_STRICT_TOKENS: 'true', RATE_LIMIT_PER_MINUTE: String(LIMIT) } })
  })
  afterAll(() => t.close())
  const login = (password: string, localAddress?: string) => t.call('POST', '/v2/auth?v=1', { body: loginBody({ ...CUSTOMER_1, password }), localAddress })

  it('a flood from one source gets API-521; another source with the same sandbox key is served', async () => {
    const flood: Response[] = []
    for (let i = 0; i < LIMIT + 3; i++) flood.push(await t.call('GET', '/v2/probe?v=1'))
    expect(flood.filter((r) => r.status === 200)).toHaveLength(LIMIT)
    expectStatus(flood.at(-1)!, 429, 'API-521')
    const other = await t.call('GET', '/v2/probe?v=1', { localAddress: OTHER })
    expectStatus(other, 200, 'API-200')
    expect(other.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1))
    t.clock.advance(60_000) // a fresh window for the tests below
  })

  it('five wrong passwords lock that source only: the right password from another source signs in', async () => {
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) expectStatus(await login('wrong'), 401, 'API-448')
    expectStatus(await login(CUSTOMER_1.password), 401, 'API-448')
    expectStatus(await login(CUSTOMER_1.password, OTHER), 200, 'API-200')
    // The credential itself is not locked, and the source's lock is one row with its end.
    const credential = await t.db.kysely.selectFrom('credentials').select(['locked_until', 'failed_attempts']).where('kind', '=', 'usernamePassword').where('lookup_key', '=', CUSTOMER_1.username).executeTakeFirstOrThrow()
    expect(credential).toEqual({ locked_until: null, failed_attempts: 0 })
    const rows = await t.db.kysely.selectFrom('source_sign_in_failures').select(['source', 'locked_until']).execute()
    expect(rows).toEqual([{ source: '127.0.0.1', locked_until: new Date(t.clock.now().getTime() + LOCKOUT_MS).toISOString() }])

    // The consent page's sign-in shares the lock: locked from 127.0.0.1, open from another source.
    const page = await openAuthorize(t, sandboxRequest(t, pkce().challenge))
    expect((await signIn(t, page)).text).toContain('That username and password did not work')
    const form = { csrf_token: page.csrf, username: CUSTOMER_1.username, password: CUSTOMER_1.password }
    const fromOther = await t.call('POST', '/oauth2/v3/authorize', {
      headers: { 'x-svc-key': undefined, 'user-agent': undefined, cookie: page.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form as Record<string, string>).toString(),
      localAddress: OTHER,
    })
    expect(fromOther.text).toContain('name="decision" value="allow"')

    t.clock.advance(LOCKOUT_MS)
    // Housekeeping deletes the ended lock; the source then signs in again.
    expect(await t.app.services.housekeeping.runOnce()).toMatchObject({ 'sign-in failures per source': 1 })
    expectStatus(await login(CUSTOMER_1.password), 200, 'API-200')
  })

  it('failed sign-ins on the consent page count toward the source lock', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, pkce().challenge))
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) await postForm(t, { csrf_token: page.csrf, username: CUSTOMER_1.username, password: 'wrong' }, page.cookie)
    expectStatus(await login(CUSTOMER_1.password), 401, 'API-448')
    expectStatus(await login(CUSTOMER_1.password, THIRD), 200, 'API-200')
    t.clock.advance(LOCKOUT_MS)
  })
  // The 200-request burst from one source is in test/identity/lockout.test.ts.
})

describe('production mode', () => {
  let t: TestApp
  let key: string
  beforeAll(async () => {
    t = await startTestApp({ features: [probeFeature], env: { MODE: 'production', SECRETS_KEY: 'per-source-test-secrets-key-0123456789', RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'warn' } })
    await importData({ db: t.db, clock: t.clock, identity: createIdentityImport(t.config.secretsKey) }, sandboxDataset())
    key = (await t.app.services.applications.create('per-source test')).key
  })
  afterAll(() => t.close())
  const as = (localAddress: string | undefined, method: string, path: string, body?: unknown) => call(t.baseUrl, key, method, path, { body, localAddress })
  const login = (password: string, localAddress?: string) => as(localAddress, 'POST', '/v2/auth?v=1', loginBody({ ...CUSTOMER_1, password }))

  it('throttles per key, whatever the source', async () => {
    for (let i = 0; i < LIMIT; i++) await as(undefined, 'GET', '/v2/probe?v=1')
    expectStatus(await as(undefined, 'GET', '/v2/probe?v=1'), 429, 'API-521')
    expectStatus(await as(OTHER, 'GET', '/v2/probe?v=1'), 429, 'API-521')
    t.clock.advance(60_000)
  })

  it('locks the credential for everyone', async () => {
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) expectStatus(await login('wrong'), 401, 'API-448')
    expectStatus(await login(CUSTOMER_1.password, OTHER), 401, 'API-448')
    expect(await t.db.kysely.selectFrom('source_sign_in_failures').selectAll().execute()).toEqual([])
    t.clock.advance(LOCKOUT_MS)
    expectStatus(await login(CUSTOMER_1.password, OTHER), 200, 'API-200')
  })
})

describe('behind a proxy (TRUST_PROXY)', () => {
  const flood = async (t: TestApp, forwardedFor: string) => {
    const answers: Response[] = []
    for (let i = 0; i < LIMIT + 1; i++) answers.push(await t.call('GET', '/v2/probe?v=1', { headers: { 'x-forwarded-for': forwardedFor } }))
    return answers
  }

  it("counts each client by the trusted proxy's X-Forwarded-For", async () => {
    const t = await startTestApp({ features: [probeFeature], env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: '127.0.0.1' } })
    try {
      expectStatus((await flood(t, '203.0.113.7')).at(-1)!, 429, 'API-521')
      expectStatus(await t.call('GET', '/v2/probe?v=1', { headers: { 'x-forwarded-for': '203.0.113.8' } }), 200, 'API-200')
    } finally {
      await t.close()
    }
  })

  it('ignores X-Forwarded-For without TRUST_PROXY, so a client cannot pick its own address', async () => {
    const t = await startTestApp({ features: [probeFeature], env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } })
    try {
      expectStatus((await flood(t, '203.0.113.7')).at(-1)!, 429, 'API-521')
      expectStatus(await t.call('GET', '/v2/probe?v=1', { headers: { 'x-forwarded-for': '203.0.113.8' } }), 429, 'API-521')
    } finally {
      await t.close()
    }
  })
})
