// OAuth's client-authenticated endpoints through the shared security suite: the token endpoint, revocation,
// introspection and pushed authorization requests, each against every way a client may fail to authenticate (none,
// an unknown client, a wrong secret, malformed HTTP Basic, a revoked client), refused with invalid_client in RFC
// 6749's shape (the token endpoint at HTTP 500, as the reporting spec answers a failed refresh; the others at 401
// with WWW-Authenticate: Basic); and another client's token answered as one nobody has.
import { afterAll, beforeAll, expect } from 'vitest'
import { startTestApp, type Response, type TestApp } from '../support/harness.js'
import { basic, REDIRECT, token } from '../support/oauth.js'
import { OAUTH_ROUTES, type OAuthRoute } from '../support/security/oauth-routes.js'
import { describeSecuritySuite } from '../support/security/suite.js'

interface Client {
  id: string
  clientId: string
  secret: string
}

let t: TestApp
let caller: Client
let other: Client
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  caller = await client('Caller')
  other = await client('Another client')
})
afterAll(() => t.close())

/** A confidential client of its own (a test may revoke it). */
async function client(name: string): Promise<Client> {
  const { client, secret } = await t.app.services.oauth.clients.create({ name, redirectUris: [REDIRECT], scopes: ['accounts', 'reporting'], public: false })
  return { id: client.id, clientId: client.publicId!, secret: secret! }
}

/** Sends the route's form (its fields changed as told) with these headers; no gateway headers. */
function send(route: OAuthRoute, headers: Record<string, string>, fields: Record<string, string> = {}): Promise<Response> {
  const body = new URLSearchParams({ ...route.fields(), ...fields }).toString()
  return t.call('POST', route.path, { headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body })
}
const as = (c: { clientId: string; secret: string }) => ({ authorization: basic(c.clientId, c.secret) })

/** An access token of the client (client_credentials). */
async function tokenOf(c: Client): Promise<string> {
  const res = await token(t, { grant_type: 'client_credentials', scope: 'reporting' }, as(c))
  expect(res.status, res.text).toBe(200)
  return res.json.access_token as string
}

describeSecuritySuite<OAuthRoute>({
  family: 'OAuth',
  routes: OAUTH_ROUTES,
  allowed: (route) => send(route, as(caller)),
  refusals: {
    'no credential': (route) => send(route, {}),
    'unknown credential': (route) => send(route, as({ clientId: 'fc_nobody', secret: caller.secret })),
    // In HTTP Basic, and in the form (client_secret_post).
    'wrong secret': async (route) => [await send(route, as({ ...caller, secret: 'wrong' })), await send(route, {}, { client_id: caller.clientId, client_secret: 'wrong' })],
    'malformed credential': (route) => send(route, { authorization: 'Basic not-base64!' }),
    async 'revoked credential'(route) {
      const revoked = await client('Revoked meanwhile')
      await t.app.services.oauth.clients.revoke(revoked.id)
      return send(route, as(revoked))
    },
  },
  expectAllowed(res, route) {
    expect(res.status, res.text).toBe(route.route === 'POST /oauth2/v3/par' ? 201 : 200)
    expect(res.headers['cache-control']).toBe('no-store')
  },
  expectRefused(res, _refusal, route) {
    const tokenEndpoint = route.route === 'POST /oauth2/v3/token'
    expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status: tokenEndpoint ? 500 : 401, error: 'invalid_client' })
    expect(Object.keys(res.json).sort()).toEqual(['error', 'error_description'])
    expect(res.headers['cache-control']).toBe('no-store')
    if (!tokenEndpoint) expect(res.headers['www-authenticate']).toMatch(/^Basic realm="finapi"/)
  },
  tenancy: {
    applies: (route) => route.token === true,
    other: async (route) => send(route, as(caller), { token: await tokenOf(other) }),
    unknown: (route) => send(route, as(caller), { token: `fat_${'A'.repeat(43)}` }),
    expectUnknown(res, route) {
      expect(res.status, res.text).toBe(200)
      if (route.route === 'POST /oauth2/v3/introspect') expect(res.json).toEqual({ active: false })
      else expect(res.text).toBe('')
    },
  },
})
