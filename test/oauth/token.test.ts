// POST /oauth2/v3/token: every grant, its exact success and failure answers, client authentication, rotation and
// reuse detection, expiry through the fake clock, hashed storage, and its OpenAPI description.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CODE_TTL_MS } from '../../src/oauth/authorize-service.js'
import { REFRESH_TOKEN_TTL_S } from '../../src/oauth/token-service.js'
import { expectStatus, withToken } from '../support/banking.js'
import { startTestApp, type Response, type TestApp } from '../support/harness.js'
import { MERCHANT_CLIENT } from '../support/reporting-oauth.js'
import { REDIRECT, TOKEN_HEADERS, authorizeCode, basic, expectTokenError, pkce, sandboxRequest, sandboxTokens, token } from '../support/oauth.js'

let t: TestApp
const PARTNER_REDIRECT = 'https://partner.example/callback'
let partner: { clientId: string; secret: string }
let other: { clientId: string; secret: string }

beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  const create = async (name: string, scopes: string[]) => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name, redirectUris: [PARTNER_REDIRECT], scopes, public: false })
    return { clientId: client.publicId!, secret: secret! }
  }
  partner = await create('Partner', ['accounts', 'reporting'])
  other = await create('Other partner', ['reporting'])
})
afterAll(() => t.close())

const TOKEN = /^fat_[A-Za-z0-9_-]{43}$/
const REFRESH = /^frt_[A-Za-z0-9_-]{43}$/

/** The spec's success answer for an `accounts` grant: status, headers (the correlation id echoed) and exact body. */
function expectSpecSuccess(res: Response, correlationId: string): void {
  expect(res.status, res.text).toBe(200)
  expect(res.headers).toMatchObject({ ...TOKEN_HEADERS, 'v-c-client-correlation-id': correlationId })
  expect(res.json).toEqual({
    access_token: expect.stringMatching(TOKEN),
    token_type: 'bearer',
    refresh_token: expect.stringMatching(REFRESH),
    expires_in: 900,
    scope: 'accounts',
    refresh_token_expires_in: 31536000, // the spec's year, whatever REFRESH_TOKEN_TTL_S says
    client_status: 'active',
  })
}

/** A code for the sandbox client with its verifier. */
async function sandboxCode(scope = 'accounts') {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge, { scope }) })
  const exchange = (fields: Record<string, string | undefined> = {}, headers: Record<string, string | undefined> = {}) =>
    token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier, ...fields }, headers)
  return { code, verifier, exchange }
}

/** A code for the confidential partner client. */
async function partnerCode(scope = 'reporting') {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeCode(t, {
    params: { response_type: 'code', client_id: partner.clientId, redirect_uri: PARTNER_REDIRECT, scope, code_challenge: challenge, code_challenge_method: 'S256' },
  })
  return { code, verifier }
}

const accounts = (accessToken: string) => withToken(t, accessToken)('GET', '/v2/accounts?v=1')

describe('authorization_code', () => {
  it('answers exactly the spec\'s success: status, headers and body', async () => {
    const { exchange } = await sandboxCode()
    const res = await exchange({}, { 'v-c-client-correlation-id': 'corr-42.a:b' })
    expectSpecSuccess(res, 'corr-42.a:b')
    expect(Object.keys(res.json)).toEqual(['access_token', 'token_type', 'refresh_token', 'expires_in', 'scope', 'refresh_token_expires_in', 'client_status'])
    expectStatus(await accounts(res.json.access_token), 200, 'API-200')
  })

  it('a confidential client authenticates with HTTP Basic or in the body', async () => {
    const viaBasic = await partnerCode()
    const res = await token(
      t,
      { grant_type: 'authorization_code', code: viaBasic.code, redirect_uri: PARTNER_REDIRECT, code_verifier: viaBasic.verifier },
      { authorization: basic(partner.clientId, partner.secret) },
    )
    expect(res.status, res.text).toBe(200)
    expect(res.json.scope).toBe('reporting')
    const viaBody = await partnerCode('accounts reporting')
    const res2 = await token(t, {
      grant_type: 'authorization_code',
      code: viaBody.code,
      redirect_uri: PARTNER_REDIRECT,
      code_verifier: viaBody.verifier,
      client_id: partner.clientId,
      client_secret: partner.secret,
    })
    expect(res2.status, res2.text).toBe(200)
    expect(res2.json.scope).toBe('accounts reporting')
  })

  it('a second use fails and revokes the access and refresh tokens the first use got', async () => {
    const { exchange } = await sandboxCode()
    const first = await exchange()
    expectStatus(await accounts(first.json.access_token), 200, 'API-200')
    const second = await exchange()
    expect(second.json).toEqual({ error: 'invalid_grant', error_description: 'the authorization code was already used; the tokens issued for it are revoked' })
    expectTokenError(second, 'invalid_grant')
    expectStatus(await accounts(first.json.access_token), 401, 'API-448')
    expectTokenError(await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.json.refresh_token }), 'invalid_grant')
  })

  it('two uses at the same moment: one wins, and the replay still revokes it', async () => {
    const { exchange } = await sandboxCode()
    const results = await Promise.all([exchange(), exchange()])
    const winners = results.filter((r) => r.status === 200)
    expect(winners.length).toBeLessThanOrEqual(1)
    for (const r of results.filter((r) => r.status !== 200)) expectTokenError(r, 'invalid_grant', /already used/)
    for (const w of winners) expectStatus(await accounts(w.json.access_token), 401, 'API-448')
  })

  it('an expired code (10 minutes and a second) → invalid_grant', async () => {
    const { exchange } = await sandboxCode()
    t.clock.advance(CODE_TTL_MS + 1000)
    expectTokenError(await exchange(), 'invalid_grant', 'the authorization code has expired')
  })

  it('a code still works just before it expires', async () => {
    const { exchange } = await sandboxCode()
    t.clock.advance(CODE_TTL_MS - 1000)
    expect((await exchange()).status).toBe(200)
  })

  it('a PKCE mismatch → invalid_grant, and the failed call spends nothing', async () => {
    const { exchange } = await sandboxCode()
    expectTokenError(await exchange({ code_verifier: pkce().verifier }), 'invalid_grant', 'code_verifier does not match the code_challenge')
    expect((await exchange()).status).toBe(200)
  })

  it.each([
    ['no code_verifier', 'invalid_request', 'code_verifier is required', { code_verifier: undefined }],
    ['an empty code_verifier', 'invalid_request', 'code_verifier is required', { code_verifier: '' }],
    ['a malformed code_verifier', 'invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~', { code_verifier: 'too-short' }],
    ['no code', 'invalid_request', 'code is required', { code: undefined }],
    ['an unknown code', 'invalid_grant', 'the authorization code is not valid', { code: 'never-issued' }],
    ['no redirect_uri', 'invalid_request', 'redirect_uri is required', { redirect_uri: undefined }],
    ['another redirect_uri', 'invalid_grant', 'redirect_uri differs from the authorization request', { redirect_uri: 'http://127.0.0.1:8123/other' }],
    ['redirect_url differing from redirect_uri', 'invalid_request', 'redirect_uri and redirect_url differ', { redirect_url: 'http://127.0.0.1:8123/other' }],
  ])('%s → %s; the code still works afterwards', async (_label, error, description, fields) => {
    const { exchange } = await sandboxCode()
    expectTokenError(await exchange(fields), error, description)
    expect((await exchange()).status).toBe(200)
  })

  it('accepts redirect_url for redirect_uri', async () => {
    const { exchange } = await sandboxCode()
    expect((await exchange({ redirect_uri: undefined, redirect_url: REDIRECT })).status).toBe(200)
  })

  it('another client\'s code → invalid_grant', async () => {
    const { code, verifier } = await partnerCode()
    const res = await token(t, { grant_type: 'authorization_code', client_id: other.clientId, client_secret: other.secret, code, redirect_uri: PARTNER_REDIRECT, code_verifier: verifier })
    expectTokenError(res, 'invalid_grant', 'the authorization code is not valid')
  })
})

describe('client authentication', () => {
  it('a secret with + and = is taken from HTTP Basic form-encoded (RFC 6749 2.3.1) or raw, as Swagger UI and many clients send it', async () => {
    const { clientId, secret } = MERCHANT_CLIENT
    expect(secret).toMatch(/\+.*=$/)
    const raw = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
    for (const authorization of [basic(clientId, secret), raw]) {
      const res = await token(t, { grant_type: 'client_credentials' }, { authorization })
      expect(res.status, res.text).toBe(200)
    }
    // A raw secret whose + is read as a space is not some other secret: a wrong one is still refused either way.
    const wrong = `Basic ${Buffer.from(`${clientId}:${secret.replace('+', '-')}`).toString('base64')}`
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, { authorization: wrong }), 'invalid_client', /client/)
    const spaced = `Basic ${Buffer.from(`${clientId}:${secret.replace(/\+/g, ' ')}`).toString('base64')}`
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, { authorization: spaced }), 'invalid_client', /client/)
  })

  it.each([
    ['an unknown client', () => ({ client_id: 'fc_nobody' }), undefined],
    ['a wrong secret in the body', () => ({ client_id: partner.clientId, client_secret: 'wrong' }), undefined],
    ['a wrong secret in HTTP Basic', () => ({}), () => basic(partner.clientId, 'wrong')],
    ['a confidential client without its secret', () => ({ client_id: partner.clientId }), undefined],
    ['a public client with a secret', () => ({ client_id: t.sandboxKey, client_secret: 'anything' }), undefined],
    ['no client at all', () => ({}), undefined],
    ['malformed HTTP Basic', () => ({}), () => 'Basic not-base64!'],
  ])('%s → invalid_client', async (_label, fields, authorization) => {
    const res = await token(t, { grant_type: 'client_credentials', ...fields() }, { authorization: authorization?.() })
    expectTokenError(res, 'invalid_client', /client/)
  })

  it('the same description for an unknown client and a wrong secret', async () => {
    const unknown = await token(t, { grant_type: 'client_credentials', client_id: 'fc_nobody', client_secret: 'x' })
    const wrong = await token(t, { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: 'x' })
    expect(unknown.json).toEqual(wrong.json)
    expect(wrong.json).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' })
  })

  it('a secret in both places → invalid_request', async () => {
    const res = await token(t, { grant_type: 'client_credentials', client_secret: partner.secret }, { authorization: basic(partner.clientId, partner.secret) })
    expectTokenError(res, 'invalid_request', 'send the client secret once: in HTTP Basic or in the body, not both')
  })

  it('a revoked client → invalid_client, and its tokens stop working', async () => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name: 'Short-lived', redirectUris: [], scopes: ['reporting'], public: false })
    const creds = { grant_type: 'client_credentials', client_id: client.publicId!, client_secret: secret! }
    const issued = await token(t, creds)
    expect(issued.status).toBe(200)
    await t.app.services.oauth.clients.revoke(client.id)
    expectTokenError(await token(t, creds), 'invalid_client')
    await expect(t.app.services.identity.resolvePrincipal(issued.json.access_token)).rejects.toMatchObject({ kind: 'unauthenticated' })
  })
})

describe('refresh_token', () => {
  it('rotates: a new access and refresh token each time, the refresh token\'s year restarted', async () => {
    const first = await sandboxTokens(t)
    t.clock.advance(300 * 24 * 3600 * 1000) // 300 days: the access token is long gone, the refresh token is not
    expectStatus(await accounts(first.access_token), 401, 'API-448')
    const res = await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.refresh_token }, { 'v-c-client-correlation-id': 'r-1' })
    expectSpecSuccess(res, 'r-1')
    expect(res.json.refresh_token).not.toBe(first.refresh_token)
    expectStatus(await accounts(res.json.access_token), 200, 'API-200')
    // 300 more days: past the first token's year, within the second's.
    t.clock.advance(300 * 24 * 3600 * 1000)
    expect((await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: res.json.refresh_token })).status).toBe(200)
  })

  it('an unused refresh token expires after a year', async () => {
    const first = await sandboxTokens(t)
    t.clock.advance(REFRESH_TOKEN_TTL_S * 1000)
    expectTokenError(await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.refresh_token }), 'invalid_grant', 'the refresh token has expired')
  })

  it('presenting a used refresh token revokes the whole family, access tokens included', async () => {
    const first = await sandboxTokens(t)
    const refresh = (refresh_token: string) => token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token })
    const second = await refresh(first.refresh_token)
    expect(second.status).toBe(200)
    expectStatus(await accounts(second.json.access_token), 200, 'API-200')

    const replay = await refresh(first.refresh_token)
    expect(replay.json).toEqual({ error: 'invalid_grant', error_description: 'the refresh token was already used; every token of its grant is revoked' })
    expectTokenError(replay, 'invalid_grant')
    expectStatus(await accounts(second.json.access_token), 401, 'API-448')
    expectStatus(await accounts(first.access_token), 401, 'API-448')
    expectTokenError(await refresh(second.json.refresh_token), 'invalid_grant', 'the refresh token has been revoked')
  })

  it('asks for fewer scopes, never more', async () => {
    const first = await sandboxTokens(t, undefined, 'accounts reporting')
    const narrowed = await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.refresh_token, scope: 'reporting' })
    expect(narrowed.json.scope).toBe('reporting')
    // The family keeps what was granted: the next refresh may ask for accounts again.
    const back = await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: narrowed.json.refresh_token })
    expect(back.json.scope).toBe('accounts reporting')

    const only = await sandboxTokens(t)
    const wider = await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: only.refresh_token, scope: 'accounts reporting' })
    expectTokenError(wider, 'invalid_scope', 'reporting is not part of the grant')
    expect((await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: only.refresh_token })).status).toBe(200)
  })

  it.each([
    ['no refresh_token', 'invalid_request', 'refresh_token is required', () => undefined],
    ['an unknown refresh token', 'invalid_grant', 'the refresh token is not valid', () => 'frt_unknown'],
  ])('%s → %s', async (_label, error, description, value) => {
    expectTokenError(await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: value() }), error, description)
  })

  it('an access token is not a refresh token', async () => {
    const first = await sandboxTokens(t)
    expectTokenError(await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.access_token }), 'invalid_grant')
    expectStatus(await accounts(first.access_token), 200, 'API-200')
  })

  it('another client\'s refresh token → invalid_grant, and nothing changes for its owner', async () => {
    const first = await sandboxTokens(t)
    const res = await token(t, { grant_type: 'refresh_token', client_id: partner.clientId, client_secret: partner.secret, refresh_token: first.refresh_token })
    expectTokenError(res, 'invalid_grant', 'the refresh token is not valid')
    expectStatus(await accounts(first.access_token), 200, 'API-200')
    expect((await token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: first.refresh_token })).status).toBe(200)
  })
})

describe('client_credentials', () => {
  it('a confidential client gets a token of its own, with no customer', async () => {
    const res = await token(t, { grant_type: 'client_credentials', scope: 'reporting' }, { authorization: basic(partner.clientId, partner.secret) })
    expect(res.status, res.text).toBe(200)
    expect(res.headers).toMatchObject(TOKEN_HEADERS)
    expect(res.json).toMatchObject({ token_type: 'bearer', expires_in: 900, scope: 'reporting', refresh_token_expires_in: 31536000, client_status: 'active' })
    expect(await t.app.services.identity.resolvePrincipal(res.json.access_token)).toMatchObject({ source: 'oauth', customerId: null, scopes: ['reporting'] })
    // Its refresh token refreshes with the client's secret, like any other.
    const refreshed = await token(t, { grant_type: 'refresh_token', refresh_token: res.json.refresh_token }, { authorization: basic(partner.clientId, partner.secret) })
    expect(refreshed.status).toBe(200)
    // A token without a customer reads no accounts.
    expectStatus(await accounts(res.json.access_token), 401, 'API-448')
  })

  it('without a scope, every scope the client may have', async () => {
    const res = await token(t, { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.secret })
    expect(res.json.scope).toBe('accounts reporting')
  })

  it('a scope the client may not ask for → invalid_scope', async () => {
    const res = await token(t, { grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.secret, scope: 'accounts' })
    expectTokenError(res, 'invalid_scope', 'accounts is not allowed for this client')
  })

  it('a public client is refused → unauthorized_client', async () => {
    const res = await token(t, { grant_type: 'client_credentials', client_id: t.sandboxKey })
    expect(res.json).toEqual({ error: 'unauthorized_client', error_description: 'client_credentials is for confidential clients only' })
    expectTokenError(res, 'unauthorized_client')
  })
})

describe('malformed requests answer the same JSON shape', () => {
  it.each([
    ['no grant_type', 'invalid_request', 'grant_type is required', { client_id: 'x' }],
    ['an unknown grant_type', 'unsupported_grant_type', 'grant_type must be one of authorization_code, refresh_token, client_credentials', { grant_type: 'password', client_id: 'x' }],
    ['the implicit grant', 'unsupported_grant_type', undefined, { grant_type: 'implicit', client_id: 'x' }],
  ])('%s → %s', async (_label, error, description, fields) => {
    expectTokenError(await token(t, fields), error, description)
  })

  it('a repeated parameter → invalid_request', async () => {
    const res = await t.call('POST', '/oauth2/v3/token', {
      headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${partner.clientId}&client_secret=${partner.secret}&scope=reporting&scope=accounts`,
    })
    expectTokenError(res, 'invalid_request', 'scope must be sent once, as text of at most 2048 characters')
  })

  it('a JSON body → invalid_request', async () => {
    const res = await t.call('POST', '/oauth2/v3/token', { headers: { 'x-svc-key': undefined }, body: { grant_type: 'client_credentials' } })
    expectTokenError(res, 'invalid_request', 'the body must be application/x-www-form-urlencoded')
  })

  it('a body over the limit → invalid_request', async () => {
    const res = await token(t, { grant_type: 'client_credentials', padding: 'x'.repeat(70_000) })
    expectTokenError(res, 'invalid_request', 'the request body is too large')
  })

  it('no body at all → invalid_request', async () => {
    const res = await t.call('POST', '/oauth2/v3/token', { headers: { 'x-svc-key': undefined } })
    expectTokenError(res, 'invalid_request', 'the body must be application/x-www-form-urlencoded')
  })

  it('an empty form → invalid_client (nobody to authenticate)', async () => {
    expectTokenError(await token(t, {}), 'invalid_client', 'client authentication failed: client_id is missing')
  })

  it('form content type with a charset is accepted', async () => {
    const res = await t.call('POST', '/oauth2/v3/token', {
      headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.secret }).toString(),
    })
    expect(res.status, res.text).toBe(200)
  })

  it('a correlation id that is not a plain token is not echoed; a generated one is sent', async () => {
    const res = await token(t, { grant_type: 'password' }, { 'v-c-client-correlation-id': 'bad id <script>' })
    expect(res.headers['v-c-client-correlation-id']).toBe(res.headers['x-correlationid'])
    expect(res.headers['v-c-client-correlation-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('storage and logs', () => {
  it('codes, tokens, client secrets and consent tokens are stored only as hashes', async () => {
    const { code, exchange } = await sandboxCode()
    const issued = (await exchange()).json
    const { client, secret } = await t.app.services.oauth.clients.create({ name: 'Hashed', redirectUris: [], scopes: ['reporting'], public: false })
    const cc = (await token(t, { grant_type: 'client_credentials', client_id: client.publicId!, client_secret: secret! })).json
    const tables = ['oauth_clients', 'oauth_consents', 'oauth_codes', 'oauth_grants', 'oauth_tokens'] as const
    const dump = JSON.stringify(await Promise.all(tables.map((name) => t.db.kysely.selectFrom(name).selectAll().execute())))
    for (const value of [code, issued.access_token, issued.refresh_token, secret!, cc.access_token, cc.refresh_token, t.sandboxKey]) {
      expect(dump).not.toContain(value)
    }
    expect(dump).toContain('"secret_hash":"scrypt$')
  })

  it('no secret reaches a log line', async () => {
    const { code, verifier, exchange } = await sandboxCode()
    const issued = (await exchange()).json
    const logs = JSON.stringify(t.logs)
    for (const value of [code, verifier, issued.access_token, issued.refresh_token, partner.secret, t.sandboxKey]) expect(logs).not.toContain(value)
  })
})

describe('/openapi.json', () => {
  it('describes the token endpoint: form fields, 200 and 500', async () => {
    const doc = (await t.call('GET', '/openapi.json', { headers: { 'x-svc-key': undefined } })).json
    const op = doc.paths['/oauth2/v3/token'].post
    expect(op.operationId).toBe('token')
    const form = op.requestBody.content['application/x-www-form-urlencoded'].schema
    expect(Object.keys(form.properties)).toEqual(expect.arrayContaining(['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'client_id', 'client_secret', 'scope']))
    expect(Object.keys(op.responses['200'].content['application/json'].schema.properties)).toEqual([
      'access_token',
      'token_type',
      'refresh_token',
      'expires_in',
      'scope',
      'refresh_token_expires_in',
      'client_status',
    ])
    expect(op.responses['500'].content['application/json'].schema.properties.error.enum).toContain('invalid_grant')
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'v-c-client-correlation-id', in: 'header' }))
    expect(doc.paths['/oauth2/v3/authorize'].get.parameters).toContainEqual(expect.objectContaining({ name: 'code_challenge', in: 'query' }))
    expect(doc.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({ authorizationUrl: '/oauth2/v3/authorize', tokenUrl: '/oauth2/v3/token' })
  })
})
