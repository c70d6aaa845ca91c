// Banking through the shared security suite: every route under /v2 against every way of not being allowed (the
// application key missing, wrong or revoked; the customer's token missing, garbage, expired, revoked, of the wrong
// scope or another family's; maintenance), each answered in the banking envelope, and another customer's account
// token answered as an unknown one. Runs with SANDBOX_STRICT_TOKENS=true, so the sandbox data is checked as
// production checks tokens.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { SESSION_TTL_MS as ACCESS_TOKEN_TTL_MS } from '../../src/identity/service.js'
import { CUSTOMER_2, expectStatus, login, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { sandboxTokens } from '../support/oauth.js'
import { MERCHANT_CLIENT, clientCredentialsToken } from '../support/reporting-oauth.js'
import { BANKING_ROUTES, UNKNOWN_ACCOUNT, accountTokens, prepareBankingSecurity, type BankingRoute } from '../support/security/banking-routes.js'
import { describeSecuritySuite, split, type Refusal, type Sender } from '../support/security/suite.js'

let t: TestApp
let customer1Token: string
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  await prepareBankingSecurity(t)
  customer1Token = await login(t)
})
afterAll(() => t.close())

/** Sends the route with these headers over an allowed caller's (a header set to undefined is left off). */
const send = (route: BankingRoute, headers: Record<string, string | undefined>) => t.call(split(route).method, route.path(), { headers, body: route.body })
/** An allowed caller: the sandbox key (the harness's default) and, where the route takes one, a fresh token. */
const allowedHeaders = async (route: BankingRoute): Promise<Record<string, string>> => (route.token ? { authorization: await login(t) } : {})
const withCredential = (authorization: string | undefined) => (route: BankingRoute) => send(route, { authorization })
/** A way of refusing that only routes taking a token have. */
const tokenRoutes = (sendIt: Sender<BankingRoute>) => ({ applies: (route: BankingRoute) => route.token, send: sendIt })

const REFUSED: Record<Refusal, readonly [number, string]> = {
  'no key': [400, 'API-420'],
  'wrong key': [403, 'API-440'],
  'revoked application': [403, 'API-440'],
  'no credential': [401, 'API-448'],
  'malformed credential': [401, 'API-448'],
  'wrong secret': [401, 'API-448'],
  'unknown credential': [401, 'API-448'],
  'expired credential': [401, 'API-448'],
  'revoked credential': [401, 'API-448'],
  'wrong scope': [401, 'API-448'],
  'another family': [401, 'API-448'],
  maintenance: [503, 'API-522'],
}

describeSecuritySuite<BankingRoute>({
  family: 'banking',
  routes: BANKING_ROUTES,
  allowed: async (route) => send(route, await allowedHeaders(route)),
  refusals: {
    'no key': async (route) => send(route, { ...(await allowedHeaders(route)), 'x-svc-key': undefined }),
    'wrong key': async (route) => send(route, { ...(await allowedHeaders(route)), 'x-svc-key': 'fk_wrong-key-0000000000' }),
    async 'revoked application'(route) {
      const { application, key } = await t.app.services.applications.create('Revoked meanwhile')
      const headers = { ...(await allowedHeaders(route)), 'x-svc-key': key }
      await t.app.services.applications.revoke(application.id)
      return send(route, headers)
    },
    'no credential': tokenRoutes(withCredential(undefined)),
    'malformed credential': tokenRoutes(async (route) => [await withCredential('')(route), await withCredential('not-a-token-at-all')(route)]),
    'expired credential': tokenRoutes(async (route) => {
      const token = await login(t)
      t.clock.advance(ACCESS_TOKEN_TTL_MS)
      try {
        return await withCredential(token)(route)
      } finally {
        t.clock.advance(-ACCESS_TOKEN_TTL_MS)
      }
    }),
    'revoked credential': tokenRoutes(async (route) => {
      const token = await login(t)
      expectStatus(await withToken(t, token)('DELETE', '/v2/auth?v=1'), 200, 'API-200')
      return withCredential(token)(route)
    }),
    'wrong scope': tokenRoutes(async (route) => withCredential((await sandboxTokens(t, undefined, 'reporting')).access_token)(route)),
    // A merchant API token (the reporting client's, client_credentials): it acts for an organization, never a customer.
    'another family': tokenRoutes(async (route) => {
      const { access_token } = await clientCredentialsToken(t, MERCHANT_CLIENT)
      return [await withCredential(access_token)(route), await withCredential(`Bearer ${access_token}`)(route)]
    }),
  },
  expectAllowed: (res) => expectStatus(res, 200, 'API-200'),
  expectRefused: (res, refusal) => expectStatus(res, REFUSED[refusal][0], REFUSED[refusal][1]),
  maintenance: {
    set: (on) => t.app.services.maintenance.set(on),
    async ready(route) {
      const headers = await allowedHeaders(route)
      return () => send(route, headers)
    },
  },
  tenancy: {
    applies: (route) => route.route === 'GET /v2/account/:accountToken',
    other: async () => withToken(t, await login(t, CUSTOMER_2))('GET', `/v2/account/${accountTokens.first}?v=1`),
    unknown: async () => withToken(t, await login(t, CUSTOMER_2))('GET', `/v2/account/${UNKNOWN_ACCOUNT}?v=1`),
    expectUnknown: (res) => expectStatus(res, 404, 'API-404'),
  },
  cases: [
    {
      title: 'the valid token still works after all those refusals',
      run: async () => expectStatus(await withToken(t, customer1Token)('GET', '/v2/accounts?v=1'), 200, 'API-200'),
    },
  ],
})

describe("another customer's account token", () => {
  it('is not found the other way round either', async () => {
    const res = await withToken(t, customer1Token)('GET', `/v2/account/${accountTokens.second}?v=1`)
    expectStatus(res, 404, 'API-404')
  })
})

describe('the token is checked before anything of the input is read', () => {
  it('a garbage token with malformed JSON → API-448/401, not API-420', async () => {
    const res = await t.call('POST', '/v2/token?v=1', { headers: { authorization: 'not-a-token-at-all', 'content-type': 'application/json' }, body: '{"tokenRequest": ' })
    expectStatus(res, 401, 'API-448')
  })

  it('a garbage token with an invalid path parameter → API-448/401, not API-420', async () => {
    const res = await withToken(t, 'not-a-token-at-all')('GET', `/v2/account/${'x'.repeat(200)}?v=1`)
    expectStatus(res, 401, 'API-448')
  })

  it('with a valid token the same malformed body → API-420/400', async () => {
    const res = await t.call('POST', '/v2/token?v=1', { headers: { authorization: customer1Token, 'content-type': 'application/json' }, body: '{"tokenRequest": ' })
    expectStatus(res, 400, 'API-420')
  })
})
