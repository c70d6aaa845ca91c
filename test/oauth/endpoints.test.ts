// The server's metadata (RFC 8414), token revocation (RFC 7009) and introspection (RFC 7662): happy paths, each
// error at the RFCs' statuses, and the rule that a client sees and revokes only its own tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectStatus } from '../support/banking.js'
import { startTestApp, type Response, type TestApp } from '../support/harness.js'
import { authorizeCode, basic, pkce, REDIRECT, sandboxRequest, sandboxTokens, token } from '../support/oauth.js'

let t: TestApp
let partner: { clientId: string; secret: string }
let other: { clientId: string; secret: string }
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  const make = async (name: string) => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name, redirectUris: [REDIRECT], scopes: ['accounts', 'reporting'], public: false })
    return { clientId: client.publicId!, secret: secret! }
  }
  partner = await make('Partner')
  other = await make('Other partner')
})
afterAll(() => t.close())

const form = (path: string, fields: Record<string, string>, headers: Record<string, string | undefined> = {}) =>
  t.call('POST', path, { headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() })
const as = (c: { clientId: string; secret: string }) => ({ authorization: basic(c.clientId, c.secret) })

async function partnerTokens(c = partner) {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge, { client_id: c.clientId }) })
  const res = await token(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, as(c))
  expect(res.status, res.text).toBe(200)
  return res.json as { access_token: string; refresh_token: string }
}

function expectEndpointError(res: Response, status: number, error: string, description?: string | RegExp) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error })
  expect(Object.keys(res.json).sort()).toEqual(['error', 'error_description'])
  expect(res.headers['cache-control']).toBe('no-store')
  if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Basic realm="finapi"/)
  if (typeof description === 'string') expect(res.json.error_description).toBe(description)
  else if (description) expect(res.json.error_description).toMatch(description)
}

describe('GET /.well-known/oauth-authorization-server', () => {
  it('describes exactly what the server supports, with the base URL as issuer', async () => {
    const res = await t.call('GET', '/.well-known/oauth-authorization-server', { headers: { 'x-svc-key': undefined } })
    expect(res.status).toBe(200)
    const issuer = t.baseUrl
    expect(res.json).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/v3/authorize`,
      token_endpoint: `${issuer}/oauth2/v3/token`,
      revocation_endpoint: `${issuer}/oauth2/v3/revoke`,
      introspection_endpoint: `${issuer}/oauth2/v3/introspect`,
      pushed_authorization_request_endpoint: `${issuer}/oauth2/v3/par`,
      require_pushed_authorization_requests: false,
      scopes_supported: ['accounts', 'reporting'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519'],
      service_documentation: `${issuer}/docs`,
    })
  })

  it('the iss of an authorization response is the metadata issuer', async () => {
    const { challenge } = pkce()
    const res = await t.call('GET', `/oauth2/v3/authorize?${new URLSearchParams({ ...sandboxRequest(t, challenge), response_type: 'token' } as Record<string, string>)}`, { headers: { 'x-svc-key': undefined } })
    expect(new URL(String(res.headers['location'])).searchParams.get('iss')).toBe(t.baseUrl)
  })

  it('PUBLIC_URL names the issuer when configured', async () => {
    const configured = await startTestApp({ env: { PUBLIC_URL: 'https://bank.example' } })
    try {
      const res = await configured.call('GET', '/.well-known/oauth-authorization-server', { headers: { 'x-svc-key': undefined } })
      expect(res.json).toMatchObject({ issuer: 'https://bank.example', token_endpoint: 'https://bank.example/oauth2/v3/token' })
    } finally {
      await configured.close()
    }
  })
})

describe('POST /oauth2/v3/revoke', () => {
  it('revoking the refresh token ends the whole grant: the access token stops working at once', async () => {
    const { access_token, refresh_token } = await partnerTokens()
    const res = await form('/oauth2/v3/revoke', { token: refresh_token, token_type_hint: 'refresh_token' }, as(partner))
    expect({ status: res.status, body: res.text }).toEqual({ status: 200, body: '' })
    expect((await form('/oauth2/v3/introspect', { token: access_token }, as(partner))).json).toEqual({ active: false })
    expect((await token(t, { grant_type: 'refresh_token', refresh_token }, as(partner))).json.error).toBe('invalid_grant')
  })

  it('revoking the access token (client_secret_post, no hint) ends its refresh token too', async () => {
    const { access_token, refresh_token } = await partnerTokens()
    expect((await form('/oauth2/v3/revoke', { token: access_token, client_id: partner.clientId, client_secret: partner.secret })).status).toBe(200)
    expect((await form('/oauth2/v3/introspect', { token: refresh_token }, as(partner))).json).toEqual({ active: false })
  })

  it('a public client revokes its own tokens with its client_id; the banking interface refuses them afterwards', async () => {
    const { access_token } = await sandboxTokens(t)
    expect((await form('/oauth2/v3/revoke', { token: access_token, client_id: t.sandboxKey })).status).toBe(200)
    expectStatus(await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: access_token } }), 401, 'API-448')
  })

  it('answers 200 for an unknown token, an odd hint, and another client\'s token, which stays valid', async () => {
    expect((await form('/oauth2/v3/revoke', { token: 'no-such-token' }, as(partner))).status).toBe(200)
    expect((await form('/oauth2/v3/revoke', { token: 'no-such-token', token_type_hint: 'id_token' }, as(partner))).status).toBe(200)
    const theirs = await partnerTokens(other)
    expect((await form('/oauth2/v3/revoke', { token: theirs.access_token }, as(partner))).status).toBe(200)
    expect((await form('/oauth2/v3/introspect', { token: theirs.access_token }, as(other))).json.active).toBe(true)
  })

  it('errors: 400 invalid_request without a token or with a JSON body; 401 invalid_client for a wrong secret', async () => {
    expectEndpointError(await form('/oauth2/v3/revoke', {}, as(partner)), 400, 'invalid_request', 'token is required')
    const json = await t.call('POST', '/oauth2/v3/revoke', { headers: { 'x-svc-key': undefined, ...as(partner) }, body: { token: 'x' } })
    expectEndpointError(json, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded')
    expectEndpointError(await form('/oauth2/v3/revoke', { token: 'x' }, as({ ...partner, secret: 'wrong' })), 401, 'invalid_client', 'client authentication failed')
    expectEndpointError(await form('/oauth2/v3/revoke', { token: 'x' }), 401, 'invalid_client')
    expectEndpointError(await form('/oauth2/v3/revoke', { token: 'x', client_secret: partner.secret }, as(partner)), 400, 'invalid_request')
  })
})

describe('POST /oauth2/v3/introspect', () => {
  it('describes an active access token and refresh token of the caller', async () => {
    const { access_token, refresh_token } = await partnerTokens()
    const now = Math.floor(t.clock.now().getTime() / 1000)
    const access = await form('/oauth2/v3/introspect', { token: access_token }, as(partner))
    expect(access.status).toBe(200)
    expect(access.headers['content-type']).toBe('application/json;charset=UTF-8')
    expect(access.json).toEqual({ active: true, scope: 'accounts', client_id: partner.clientId, token_type: 'Bearer', exp: now + 900, iat: now, sub: 'sandbox-customer-1' })
    const refresh = await form('/oauth2/v3/introspect', { token: refresh_token, token_type_hint: 'refresh_token' }, as(partner))
    expect(refresh.json).toMatchObject({ active: true, client_id: partner.clientId, sub: 'sandbox-customer-1' })
    expect(refresh.json.token_type).toBeUndefined()
  })

  it('a client_credentials token has no sub', async () => {
    const cc = await token(t, { grant_type: 'client_credentials', scope: 'reporting' }, as(partner))
    const res = await form('/oauth2/v3/introspect', { token: cc.json.access_token }, as(partner))
    expect(res.json).toMatchObject({ active: true, scope: 'reporting' })
    expect(res.json.sub).toBeUndefined()
  })

  it('{active:false} for unknown, expired, spent, and another client\'s tokens', async () => {
    expect((await form('/oauth2/v3/introspect', { token: 'unknown' }, as(partner))).json).toEqual({ active: false })
    const mine = await partnerTokens()
    expect((await form('/oauth2/v3/introspect', { token: mine.access_token }, as(other))).json).toEqual({ active: false })
    const rotated = await token(t, { grant_type: 'refresh_token', refresh_token: mine.refresh_token }, as(partner))
    expect(rotated.status).toBe(200)
    expect((await form('/oauth2/v3/introspect', { token: mine.refresh_token }, as(partner))).json).toEqual({ active: false })
    t.clock.advance(16 * 60_000)
    expect((await form('/oauth2/v3/introspect', { token: rotated.json.access_token }, as(partner))).json).toEqual({ active: false })
  })

  it('errors: a public client is refused (401), no token is 400, a wrong secret 401', async () => {
    expectEndpointError(await form('/oauth2/v3/introspect', { token: 'x', client_id: t.sandboxKey }), 401, 'invalid_client', 'token introspection is for confidential clients')
    expectEndpointError(await form('/oauth2/v3/introspect', {}, as(partner)), 400, 'invalid_request', 'token is required')
    expectEndpointError(await form('/oauth2/v3/introspect', { token: 'x' }, as({ ...partner, secret: 'nope' })), 401, 'invalid_client')
  })
})
