// Pushed authorization requests (RFC 9126): a pushed request works once and expires; a client registered with
// --require-par is refused a plain authorize request at its redirect URI; the push is checked like an authorize.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PAR_TTL_S } from '../../src/oauth/par/service.js'
import { startTestApp, type Response, type TestApp } from '../support/harness.js'
import { authorizePath, basic, openAuthorize, pkce, postForm, REDIRECT, redirected, sandboxRequest, signIn, token } from '../support/oauth.js'

let t: TestApp
let partner: { clientId: string; secret: string }
let strict: { clientId: string; secret: string }
beforeAll(async () => {
  t = await startTestApp()
  const make = async (name: string, requirePar: boolean) => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name, redirectUris: [REDIRECT], scopes: ['accounts'], public: false, requirePar })
    return { clientId: client.publicId!, secret: secret! }
  }
  partner = await make('Partner', false)
  strict = await make('Pushes only', true)
})
afterAll(() => t.close())

const as = (c: { clientId: string; secret: string }) => ({ authorization: basic(c.clientId, c.secret) })
const push = (fields: Record<string, string | undefined>, headers: Record<string, string> = {}) => {
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v)
  return t.call('POST', '/oauth2/v3/par', { headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: body.toString() })
}
const request = (challenge: string) => ({ response_type: 'code', redirect_uri: REDIRECT, scope: 'accounts', state: 'pushed-state', code_challenge: challenge, code_challenge_method: 'S256' })

function expectError(res: Response, status: number, error: string, description?: string) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error })
  if (description) expect(res.json.error_description).toBe(description)
}

describe('POST /oauth2/v3/par', () => {
  it('returns a single-use request_uri the authorize endpoint takes with client_id; the flow ends in tokens', async () => {
    const { verifier, challenge } = pkce()
    const res = await push(request(challenge), as(strict))
    expect(res.status, res.text).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/), expires_in: PAR_TTL_S })
    expect(PAR_TTL_S).toBeGreaterThanOrEqual(60)
    const stored = JSON.stringify(await t.db.kysely.selectFrom('oauth_pushed_requests').selectAll().execute())
    expect(stored).not.toContain(res.json.request_uri.split(':').pop())

    const page = await openAuthorize(t, { client_id: strict.clientId, request_uri: res.json.request_uri })
    expect(page.status, page.text).toBe(200)
    const consent = await signIn(t, page)
    const answer = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie)
    const query = redirected(answer)
    expect(query['state']).toBe('pushed-state')
    const tokens = await token(t, { grant_type: 'authorization_code', code: query['code'], redirect_uri: REDIRECT, code_verifier: verifier }, as(strict))
    expect(tokens.status, tokens.text).toBe(200)

    const again = await openAuthorize(t, { client_id: strict.clientId, request_uri: res.json.request_uri })
    expect(again.status).toBe(400)
    expect(again.text).toContain('expired or was already used')
  })

  it('expires after expires_in seconds', async () => {
    const res = await push(request(pkce().challenge), as(partner))
    t.clock.advance(PAR_TTL_S * 1000)
    const page = await openAuthorize(t, { client_id: partner.clientId, request_uri: res.json.request_uri })
    expect(page.status).toBe(400)
    expect(page.text).toContain('expired or was already used')
  })

  it('is bound to the client that pushed it', async () => {
    const res = await push(request(pkce().challenge), as(partner))
    expect((await openAuthorize(t, { client_id: strict.clientId, request_uri: res.json.request_uri })).status).toBe(400)
    expect((await openAuthorize(t, { client_id: partner.clientId, request_uri: res.json.request_uri })).status).toBe(200)
  })

  it('a client that requires PAR is refused a plain request: invalid_request at its redirect URI, with state and iss', async () => {
    const { challenge } = pkce()
    const res = await t.call('GET', authorizePath({ ...request(challenge), client_id: strict.clientId }), { headers: { 'x-svc-key': undefined } })
    expect(redirected(res)).toEqual({ error: 'invalid_request', error_description: 'this client must push its authorization request (RFC 9126) and send request_uri', state: 'pushed-state' })
  })

  it('a client that does not require PAR may still send plain requests', async () => {
    const page = await openAuthorize(t, { ...sandboxRequest(t, pkce().challenge), client_id: partner.clientId })
    expect(page.status).toBe(200)
  })

  it('errors, at RFC 6749 statuses: client authentication, a bad request, request_uri inside a push', async () => {
    const { challenge } = pkce()
    expectError(await push(request(challenge), as({ ...partner, secret: 'wrong' })), 401, 'invalid_client')
    expectError(await push({ ...request(challenge), redirect_uri: 'https://elsewhere.example/cb' }, as(partner)), 400, 'invalid_request', 'redirect_uri is not registered for this client')
    expectError(await push({ ...request(challenge), redirect_uri: undefined }, as(partner)), 400, 'invalid_request', 'redirect_uri is required')
    expectError(await push({ ...request(challenge), response_type: 'token' }, as(partner)), 400, 'unsupported_response_type')
    expectError(await push({ ...request(challenge), scope: 'reporting' }, as(partner)), 400, 'invalid_scope')
    expectError(await push({ ...request(challenge), code_challenge_method: 'plain' }, as(partner)), 400, 'invalid_request', 'code_challenge_method must be S256')
    expectError(await push({ ...request(challenge), request_uri: 'urn:ietf:params:oauth:request_uri:x' }, as(partner)), 400, 'invalid_request', 'a pushed request may not carry request_uri')
  })

  it('an unknown request_uri, or one without client_id, shows an error page and never redirects', async () => {
    const unknown = await openAuthorize(t, { client_id: partner.clientId, request_uri: 'urn:ietf:params:oauth:request_uri:nothing' })
    expect(unknown.status).toBe(400)
    expect(unknown.headers['location']).toBeUndefined()
    const noClient = await openAuthorize(t, { client_id: '', request_uri: 'urn:ietf:params:oauth:request_uri:nothing' } as never)
    expect(noClient.status).toBe(400)
  })

  it('expired pushed requests are pruned', async () => {
    await push(request(pkce().challenge), as(partner))
    t.clock.advance(PAR_TTL_S * 1000)
    await t.app.services.housekeeping.runOnce()
    expect(await t.db.kysely.selectFrom('oauth_pushed_requests').selectAll().execute()).toEqual([])
  })
})
