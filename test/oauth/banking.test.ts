// OAuth access tokens on the banking interface: every endpoint, the customer who granted it and no other, expiry,
// revocation by DELETE /v2/auth, scope, an application's own client, and the lenient sandbox never falling back
// to customer 1 for a real OAuth token that no longer works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACCESS_TOKEN_TTL_S } from '../../src/oauth/token/service.js'
import { CUSTOMER_2, expectStatus, withToken } from '../support/banking.js'
import { call, startTestApp, type TestApp } from '../support/harness.js'
import { authorizeCode, basic, pkce, sandboxTokens, token } from '../support/oauth.js'

describe('strict tokens (as production)', () => {
  let t: TestApp
  let customer1AccountToken: string
  let customer2AccountToken: string
  beforeAll(async () => {
    t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
    const one = await sandboxTokens(t)
    customer1AccountToken = (await withToken(t, one.access_token)('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts[0].accountToken
    const two = await sandboxTokens(t, CUSTOMER_2)
    customer2AccountToken = (await withToken(t, two.access_token)('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts[0].accountToken
  })
  afterAll(() => t.close())

  it.each([
    ['GET /v2/accounts', () => '/v2/accounts?v=1'],
    ['GET /v2/accounts/balance', () => '/v2/accounts/balance?v=1'],
    ['GET /v2/accounts/quickBalance', () => '/v2/accounts/quickBalance?v=1'],
    ['GET /v2/account/{accountToken}', () => `/v2/account/${customer1AccountToken}?v=1`],
  ])('%s works with the token bare and with Bearer', async (_name, path) => {
    const { access_token } = await sandboxTokens(t)
    expectStatus(await withToken(t, access_token)('GET', path()), 200, 'API-200')
    expectStatus(await withToken(t, `Bearer ${access_token}`)('GET', path()), 200, 'API-200')
  })

  it('POST /v2/token makes a soft credential for the customer who granted the token', async () => {
    const { access_token } = await sandboxTokens(t)
    expectStatus(await withToken(t, access_token)('POST', '/v2/token?v=1', { tokenRequest: { type: 'softcredential' } }), 200, 'API-200')
  })

  it('a token from customer 2 reads only customer 2\'s accounts', async () => {
    const { access_token } = await sandboxTokens(t, CUSTOMER_2)
    const list = await withToken(t, access_token)('GET', '/v2/accounts?v=1')
    expectStatus(list, 200, 'API-200')
    const tokens = list.json.accountsResponse.accounts.map((a: { accountToken: string }) => a.accountToken)
    expect(tokens).toContain(customer2AccountToken)
    expect(tokens).not.toContain(customer1AccountToken)
    expect(tokens).toHaveLength(3)
    expectStatus(await withToken(t, access_token)('GET', `/v2/account/${customer1AccountToken}?v=1`), 404, 'API-404')
  })

  it('DELETE /v2/auth with an OAuth token revokes it, and its refresh token with it', async () => {
    const issued = await sandboxTokens(t)
    const send = withToken(t, issued.access_token)
    expectStatus(await send('DELETE', '/v2/auth?v=1'), 200, 'API-200')
    expectStatus(await send('GET', '/v2/accounts?v=1'), 401, 'API-448')
    const refresh = await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: issued.refresh_token })
    expect(refresh.json).toEqual({ error: 'invalid_grant', error_description: 'the refresh token has been revoked' })
  })

  it('expires after 15 minutes', async () => {
    const { access_token, expires_in } = await sandboxTokens(t)
    expect(expires_in).toBe(ACCESS_TOKEN_TTL_S)
    t.clock.advance(ACCESS_TOKEN_TTL_S * 1000 - 1000)
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 200, 'API-200')
    t.clock.advance(1000)
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    await expect(t.app.services.identity.resolvePrincipal(access_token)).rejects.toMatchObject({ kind: 'unauthenticated' })
  })

  it('a refresh token is no Authorization token', async () => {
    const { refresh_token } = await sandboxTokens(t)
    expectStatus(await withToken(t, refresh_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })

  it('a token without the accounts scope reads nothing', async () => {
    const { access_token, scope } = await sandboxTokens(t, undefined, 'reporting')
    expect(scope).toBe('reporting')
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    expect(await t.app.services.identity.resolvePrincipal(access_token)).toMatchObject({ source: 'oauth', scopes: ['reporting'], customerId: 'sandbox-customer-1' })
  })

  it('an application\'s own client: the key is the client_id, and the token works with that key', async () => {
    const { application, key } = await t.app.services.applications.create('Budget app')
    const { client, secret } = await t.app.services.oauth.clients.create({
      name: 'Budget app',
      redirectUris: ['https://budget.example/oauth'],
      scopes: ['accounts'],
      public: false,
      applicationId: application.id,
    })
    expect(client.publicId).toBeNull()
    const { verifier, challenge } = pkce()
    const { code } = await authorizeCode(t, {
      params: { response_type: 'code', client_id: key, redirect_uri: 'https://budget.example/oauth', scope: 'accounts', code_challenge: challenge, code_challenge_method: 'S256' },
    })
    const res = await token(t, { grant_type: 'authorization_code', code, redirect_uri: 'https://budget.example/oauth', code_verifier: verifier }, { authorization: basic(key, secret!) })
    expect(res.status, res.text).toBe(200)
    const accounts = await call(t.baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: { authorization: res.json.access_token } })
    expectStatus(accounts, 200, 'API-200')
    // Granted to this application's key, it works beside no other key (the sandbox key here).
    expectStatus(await withToken(t, res.json.access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    // And a token granted to the sandbox key does not work beside this application's key.
    const sandboxToken = (await sandboxTokens(t)).access_token
    expectStatus(await call(t.baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: { authorization: sandboxToken } }), 401, 'API-448')
    // Revoking the application's key ends its tokens too.
    await t.app.services.applications.revoke(application.id)
    await expect(t.app.services.identity.resolvePrincipal(res.json.access_token)).rejects.toMatchObject({ kind: 'unauthenticated' })
  })
})

describe('the lenient sandbox (any Authorization string reads as customer 1)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  it('still reads any other string as customer 1, as the spec says', async () => {
    expectStatus(await withToken(t, 'anything-at-all')('GET', '/v2/accounts?v=1'), 200, 'API-200')
  })

  it('a customer 2 token reads customer 2, not customer 1', async () => {
    const { access_token } = await sandboxTokens(t, CUSTOMER_2)
    const res = await withToken(t, access_token)('GET', '/v2/accounts?v=1')
    expect(res.json.accountsResponse.accounts).toHaveLength(3)
  })

  it('a revoked OAuth token does not fall back to customer 1', async () => {
    const { access_token } = await sandboxTokens(t, CUSTOMER_2)
    expectStatus(await withToken(t, access_token)('DELETE', '/v2/auth?v=1'), 200, 'API-200')
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })

  it('a token revoked by code reuse does not fall back to customer 1', async () => {
    const { verifier, challenge } = pkce()
    const params = { response_type: 'code', client_id: t.sandboxKey, redirect_uri: 'http://localhost:7777/cb', scope: 'accounts', code_challenge: challenge, code_challenge_method: 'S256' }
    const { code } = await authorizeCode(t, { params })
    const exchange = () => token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: params.redirect_uri, code_verifier: verifier })
    const first = await exchange()
    expect((await exchange()).status).toBe(500)
    expectStatus(await withToken(t, first.json.access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })

  it('an expired OAuth token, and a refresh token, do not fall back to customer 1', async () => {
    const { access_token, refresh_token } = await sandboxTokens(t)
    expectStatus(await withToken(t, refresh_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    t.clock.advance(ACCESS_TOKEN_TTL_S * 1000)
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })
})
