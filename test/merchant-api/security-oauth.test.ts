// The merchant API family through the shared security suite, OAuth part: every route behind the family's gateway
// (test/support/security/merchant-routes.ts) with bearer access tokens of this server (the merchant's
// client_credentials token, a partner's token a merchant user allowed) against every way of not being allowed: a
// banking token or session, a token without an organization or the scope, a revoked, expired or unknown token, a
// refresh token, a revoked client, a DPoP-bound token, another tenant's organizationId. And the other way round: a
// reporting token never opens banking, in the lenient sandbox or with strict tokens.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { login } from '../support/banking.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { basic, sandboxTokens, token } from '../support/oauth.js'
import { dpopKey, proofFor } from '../support/dpop.js'
import { MERCHANT_CLIENT, PARTNER_CLIENT, clientCredentialsToken, partnerTokens, type Tokens } from '../support/reporting-oauth.js'
import { MERCHANT_ROUTES, expectAllowed, expectRefused, merchantRoute, prepareSecurityApp, probe, requestFor, withQuery, type MerchantRoute } from '../support/security/merchant-routes.js'
import { describeSecuritySuite } from '../support/security/suite.js'

let t: TestApp
let merchant: Tokens
let partner: Tokens
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe] })
  await prepareSecurityApp(t)
  merchant = await clientCredentialsToken(t, MERCHANT_CLIENT)
  partner = await partnerTokens(t)
})
afterAll(() => t.close())

/** Sends the route's call for the organization (testrest unless told) with the access token, a query parameter added as told. */
async function send(route: MerchantRoute, accessToken: string, o: { query?: string; headers?: Record<string, string>; org?: string } = {}) {
  const request = await requestFor(route, o.org)
  const headers = { 'x-svc-key': undefined, authorization: `Bearer ${accessToken}`, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers }
  return t.call(request.method, o.query ? withQuery(request, o.query) : request.path, { headers, body: request.body })
}

/**
 * Gives a stored token other scopes, as no client of an organization can get them (they are registered for
 * reporting only): what the scope rules must refuse even so.
 */
async function rescope(app: TestApp, accessToken: string, scope: string) {
  await app.db.kysely.updateTable('oauth_tokens').set({ scope }).where('token_hash', '=', createHash('sha256').update(accessToken).digest('hex')).execute()
}

/** A reporting client of its own, so a test may revoke it. */
async function ownClient(organizationId = 'testrest') {
  const { client, secret } = await t.app.services.oauth.clients.create({ name: 'Revocable', redirectUris: [], scopes: ['reporting'], public: false, organizationId })
  return { id: client.id, clientId: client.publicId!, secret: secret! }
}

describeSecuritySuite<MerchantRoute>({
  family: 'merchant API (OAuth bearer)',
  routes: MERCHANT_ROUTES,
  allowed: async (route) => [await send(route, merchant.access_token), await send(route, partner.access_token)],
  refusals: {
    // An OAuth token of scope accounts, a session token, and a reporting-scoped token of an account holder: allowed
    // by a bank customer for the (banking) sandbox client, it acts for no organization.
    'another family': async (route) => [
      await send(route, (await sandboxTokens(t, undefined, 'accounts')).access_token),
      await send(route, await login(t)),
      await send(route, (await sandboxTokens(t, undefined, 'reporting')).access_token),
    ],
    // An organization's token without the reporting scope.
    async 'wrong scope'(route) {
      const accounts = await clientCredentialsToken(t, MERCHANT_CLIENT)
      await rescope(t, accounts.access_token, 'accounts')
      return send(route, accounts.access_token)
    },
    // Refused 15 minutes on, allowed before and after.
    async 'expired credential'(route) {
      const tokens = await clientCredentialsToken(t, MERCHANT_CLIENT)
      expectAllowed(await send(route, tokens.access_token))
      t.clock.advance(15 * 60_000)
      let expired
      try {
        expired = await send(route, tokens.access_token)
      } finally {
        t.clock.advance(-15 * 60_000)
      }
      expectAllowed(await send(route, tokens.access_token))
      return expired
    },
    // A token revoked at the revocation endpoint, and every token of a revoked client; each allowed until then.
    async 'revoked credential'(route) {
      const tokens = await clientCredentialsToken(t, MERCHANT_CLIENT)
      expectAllowed(await send(route, tokens.access_token))
      const res = await t.call('POST', '/oauth2/v3/revoke', {
        headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', authorization: basic(MERCHANT_CLIENT.clientId, MERCHANT_CLIENT.secret) },
        body: new URLSearchParams({ token: tokens.access_token }).toString(),
      })
      expect(res.status).toBe(200)
      const client = await ownClient()
      const ofClient = await clientCredentialsToken(t, client)
      expectAllowed(await send(route, ofClient.access_token))
      await t.app.services.oauth.clients.revoke(client.id)
      return [await send(route, tokens.access_token), await send(route, ofClient.access_token)]
    },
    'unknown credential': (route) => send(route, `fat_${'A'.repeat(43)}`),
    'malformed credential': (route) => send(route, 'not-a-token-at-all'),
  },
  expectAllowed,
  expectRefused,
  cases: [
    {
      title: 'refuses the refresh token sent as an access token',
      run: async (route) => expectRefused(await send(route, merchant.refresh_token)),
    },
    {
      title: "refuses another tenant's organizationId exactly as an unknown one, and allows a descendant's",
      async run(route) {
        const answers = []
        for (const org of ['othermerchant', 'nosuchorg', 'testrest_two', 'testrest_acct']) answers.push(await send(route, merchant.access_token, { query: `organizationId=${org}` }))
        for (const res of answers) {
          expect(res.status).toBe(404)
          expect({ ...res.json, submitTimeUtc: undefined }).toEqual({ ...answers[1]!.json, submitTimeUtc: undefined })
        }
        const account = await clientCredentialsToken(t, PARTNER_CLIENT)
        expectAllowed(await send(route, account.access_token, { org: 'testrest_two', query: 'organizationId=testrest_two' }))
      },
    },
    {
      title: 'takes a v-c-merchant-id header naming the organization or one below it, and refuses any other',
      async run(route) {
        expectAllowed(await send(route, merchant.access_token, { headers: { 'v-c-merchant-id': 'testrest' } }))
        expectRefused(await send(route, merchant.access_token, { headers: { 'v-c-merchant-id': 'testrest_two' } }))
        expectRefused(await send(route, merchant.access_token, { headers: { 'v-c-merchant-id': 'othermerchant' } }))
      },
    },
  ],
})

describe('the OAuth bearer scheme', () => {
  it('acts for the client organization (client_credentials) or the merchant user organization (authorization_code)', async () => {
    const route = merchantRoute('GET /reporting/v3/probe')
    expect((await send(route, merchant.access_token)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'oauth' })
    // The partner belongs to testrest_acct, but the token a testrest user allowed acts for testrest only.
    expect((await send(route, partner.access_token)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'oauth' })
    expect((await send(route, partner.access_token, { query: 'organizationId=testrest_two' })).status).toBe(404)
    const account = await clientCredentialsToken(t, PARTNER_CLIENT)
    expect((await send(route, account.access_token, { headers: { 'v-c-merchant-id': 'testrest_two' } })).json).toEqual({ organizationId: 'testrest_two', authenticatedId: 'testrest_two', scheme: 'oauth' })
  })

  it('keeps the organization through a refresh', async () => {
    const refreshed = await token(t, { grant_type: 'refresh_token', client_id: PARTNER_CLIENT.clientId, client_secret: PARTNER_CLIENT.secret, refresh_token: (await partnerTokens(t)).refresh_token })
    expect(refreshed.status, refreshed.text).toBe(200)
    expect((await send(merchantRoute('GET /reporting/v3/probe'), refreshed.json.access_token)).json.organizationId).toBe('testrest')
  })

  it('refuses a DPoP-bound reporting token, whether sent as Bearer or DPoP', async () => {
    const key = dpopKey()
    const res = await token(t, { grant_type: 'client_credentials', client_id: MERCHANT_CLIENT.clientId, client_secret: MERCHANT_CLIENT.secret }, { dpop: proofFor(t, key, 'POST', '/oauth2/v3/token') })
    expect(res.json.token_type, res.text).toBe('DPoP')
    const definitions = merchantRoute('GET /reporting/v3/report-definitions')
    const { path } = await requestFor(definitions)
    expectRefused(await send(definitions, res.json.access_token))
    expectRefused(await t.call('GET', path, { headers: { 'x-svc-key': undefined, authorization: `DPoP ${res.json.access_token}`, dpop: proofFor(t, key, 'GET', path, res.json.access_token) } }))
  })

  it('counts each refusal by its reason', async () => {
    const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
    for (const reason of ['wrong_scope', 'bad_token', 'no_organization', 'inactive_token', 'unknown_token', 'dpop_bound_token', 'unsupported_scheme', 'merchant_not_allowed']) {
      expect(metrics, reason).toMatch(new RegExp(`^reporting_authentication_failures_total\\{reason="${reason}"\\} [1-9]\\d*$`, 'm'))
    }
    expect(JSON.stringify(t.logs)).not.toContain(merchant.access_token)
  })
})

describe('reporting tokens on banking', () => {
  let strict: TestApp
  beforeAll(async () => {
    strict = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  })
  afterAll(() => strict.close())

  it.each([
    ['the lenient sandbox', () => t],
    ['strict tokens', () => strict],
  ])('are refused with API-448 in %s, for every kind of reporting token', async (_mode, app) => {
    const a = app()
    const tokens = [(await clientCredentialsToken(a, MERCHANT_CLIENT)).access_token, (await partnerTokens(a)).access_token, (await clientCredentialsToken(a, PARTNER_CLIENT)).access_token]
    // The merchant user's token given the banking scope too: it still acts for an organization, so never for banking.
    const widened = (await partnerTokens(a)).access_token
    await rescope(a, widened, 'accounts reporting')
    for (const accessToken of [...tokens, widened]) {
      for (const authorization of [accessToken, `Bearer ${accessToken}`]) {
        const res = await a.call('GET', '/v2/accounts?v=1', { headers: { authorization } })
        expect({ status: res.status, code: res.json?.status?.code }).toEqual({ status: 401, code: 'API-448' })
      }
    }
  })
})
