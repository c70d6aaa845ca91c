// The shared security suite: every authenticated banking endpoint, against every way of not being allowed.
// Runs with SANDBOX_STRICT_TOKENS=true, so the sandbox data is checked as production checks tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SESSION_TTL_MS as ACCESS_TOKEN_TTL_MS } from '../../src/identity/service.js'
import { CUSTOMER_2, expectStatus, login, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { sandboxTokens } from '../support/oauth.js'
import { describeSecuritySuite } from '../support/security-suite.js'

let t: TestApp
let customer1Token: string
let customer1AccountToken: string
let customer2AccountToken: string
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  customer1Token = await login(t)
  customer1AccountToken = (await withToken(t, customer1Token)('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts[0].accountToken
  const token2 = await login(t, CUSTOMER_2)
  customer2AccountToken = (await withToken(t, token2)('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts[0].accountToken
})
afterAll(() => t.close())

interface Endpoint {
  name: string
  method: string
  path: () => string
  body?: unknown
}

const endpoints: Endpoint[] = [
  { name: 'DELETE /v2/auth', method: 'DELETE', path: () => '/v2/auth?v=1' },
  { name: 'POST /v2/token', method: 'POST', path: () => '/v2/token?v=1', body: { tokenRequest: { type: 'softcredential' } } },
  { name: 'GET /v2/accounts', method: 'GET', path: () => '/v2/accounts?v=1' },
  { name: 'GET /v2/accounts/balance', method: 'GET', path: () => '/v2/accounts/balance?v=1' },
  { name: 'GET /v2/accounts/quickBalance', method: 'GET', path: () => '/v2/accounts/quickBalance?v=1' },
  { name: 'GET /v2/account/{accountToken}', method: 'GET', path: () => `/v2/account/${customer1AccountToken}?v=1` },
]

describe.each(endpoints)('$name', (endpoint) => {
  const send = (token: string | undefined, extra: Record<string, string | undefined> = {}) =>
    withToken(t, token, extra)(endpoint.method, endpoint.path(), endpoint.body)

  it('succeeds with a valid token', async () => {
    const token = await login(t) // a fresh one: DELETE /v2/auth revokes it
    expectStatus(await send(token), 200, 'API-200')
  })

  it('no Authorization → API-448/401', async () => {
    expectStatus(await send(undefined), 401, 'API-448')
  })

  it('an empty Authorization → API-448/401', async () => {
    expectStatus(await send(''), 401, 'API-448')
  })

  it('a garbage token → API-448/401', async () => {
    expectStatus(await send('not-a-token-at-all'), 401, 'API-448')
  })

  it('an expired token → API-448/401', async () => {
    const token = await login(t)
    t.clock.advance(ACCESS_TOKEN_TTL_MS)
    try {
      expectStatus(await send(token), 401, 'API-448')
    } finally {
      t.clock.advance(-ACCESS_TOKEN_TTL_MS)
    }
  })

  it('a revoked token → API-448/401', async () => {
    const token = await login(t)
    expectStatus(await withToken(t, token)('DELETE', '/v2/auth?v=1'), 200, 'API-200')
    expectStatus(await send(token), 401, 'API-448')
  })

  it('the valid token still works after all those refusals', async () => {
    expectStatus(await withToken(t, customer1Token)('GET', '/v2/accounts?v=1'), 200, 'API-200')
  })
})

// The refusals every API family shares: no key, a wrong or revoked application key, a token without the scope,
// maintenance. Each in the banking envelope.
const REFUSED = {
  'no key': [400, 'API-420'],
  'wrong key': [403, 'API-440'],
  'revoked application': [403, 'API-440'],
  'wrong scope': [401, 'API-448'],
  maintenance: [503, 'API-522'],
} as const

describeSecuritySuite({
  family: 'banking',
  app: () => t,
  routes: endpoints,
  keyHeader: 'x-svc-key',
  allowed: async () => ({ authorization: await login(t) }),
  async revokedApplication() {
    const { application, key } = await t.app.services.applications.create('Revoked meanwhile')
    const headers = { 'x-svc-key': key, authorization: await login(t) }
    await t.app.services.applications.revoke(application.id)
    return headers
  },
  wrongScope: async () => ({ authorization: (await sandboxTokens(t, undefined, 'reporting')).access_token }),
  expectAllowed: (res) => expectStatus(res, 200, 'API-200'),
  expectRefused: (res, refusal) => expectStatus(res, REFUSED[refusal][0], REFUSED[refusal][1]),
})

describe("another customer's account token", () => {
  it('answers exactly as an unknown token does', async () => {
    const token2 = await login(t, CUSTOMER_2)
    const other = await withToken(t, token2)('GET', `/v2/account/${customer1AccountToken}?v=1`)
    const unknown = await withToken(t, token2)('GET', '/v2/account/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA?v=1')
    expectStatus(other, 404, 'API-404')
    expect(other.json).toEqual(unknown.json)
    expect(other.status).toBe(unknown.status)
  })

  it('works the other way round too', async () => {
    const res = await withToken(t, customer1Token)('GET', `/v2/account/${customer2AccountToken}?v=1`)
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
