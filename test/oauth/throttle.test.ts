// The guessing throttles, under a scripted flood: the consent page's sign-in and the client-authenticated
// endpoints are limited per client and source address and per client in all; the flooding client is limited,
// another client's sign-in and token calls go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../support/harness.js'
import { basic, expectTokenError, openAuthorize, pkce, postForm, REDIRECT, sandboxRequest, signIn, token } from '../support/oauth.js'

let t: TestApp
let flooded: { clientId: string; secret: string }
let bystander: { clientId: string; secret: string }
beforeAll(async () => {
  t = await startTestApp({
    env: { OAUTH_SIGN_IN_PER_MINUTE: '5', OAUTH_SIGN_IN_PER_CLIENT_PER_MINUTE: '8', OAUTH_CLIENT_CALLS_PER_MINUTE: '3', OAUTH_CLIENT_CALLS_PER_CLIENT_PER_MINUTE: '6' },
  })
  const make = async (name: string) => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name, redirectUris: [REDIRECT], scopes: ['accounts', 'reporting'], public: false })
    return { clientId: client.publicId!, secret: secret! }
  }
  flooded = await make('Flooded')
  bystander = await make('Bystander')
})
afterAll(() => t.close())

const page = (clientId: string) => openAuthorize(t, { ...sandboxRequest(t, pkce().challenge), client_id: clientId })
const wrongPassword = (p: Awaited<ReturnType<typeof page>>, localAddress?: string) =>
  t.call('POST', '/oauth2/v3/authorize', {
    headers: { 'x-svc-key': undefined, cookie: p.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    // An unknown user, so the per-credential lockout (which would also stop customer 1 from this address) stays out.
    body: new URLSearchParams({ csrf_token: p.csrf!, username: 'guess-user', password: 'wrong' }).toString(),
    localAddress,
  })

describe('sign-in on the consent page', () => {
  it('a flood on one client gets 429 pages with Retry-After; another client\'s sign-in still succeeds', async () => {
    const flood = await page(flooded.clientId)
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) statuses.push((await wrongPassword(flood)).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429])
    const limited = await wrongPassword(flood)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.headers['content-type']).toMatch(/^text\/html/)
    expect(limited.text).toContain('Too many sign-in attempts')
    // Even the right password waits: the throttle comes before the password is checked.
    expect((await signIn(t, flood)).status).toBe(429)

    const other = await page(bystander.clientId)
    const consent = await signIn(t, other)
    expect(consent.status, consent.text).toBe(200)
    expect(consent.text).toContain('Allow')
    const answer = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, other.cookie)
    expect(answer.status).toBe(303)
  })

  it('counts per source address, then per client in all; a minute later the client signs in again', async () => {
    const flood = await page(flooded.clientId)
    // 127.0.0.2 has its own allowance of the client's (5 so far were spent from 127.0.0.1, of 8 in all).
    const fromTwo: number[] = []
    for (let i = 0; i < 4; i++) fromTwo.push((await wrongPassword(flood, '127.0.0.2')).status)
    expect(fromTwo).toEqual([200, 200, 200, 429])
    expect((await wrongPassword(flood, '127.0.0.3')).status).toBe(429)
    t.clock.advance(61_000)
    expect((await signIn(t, flood)).status).toBe(200)
  })
})

describe('the token endpoint and the other client endpoints', () => {
  it('a flood of wrong secrets is answered temporarily_unavailable with Retry-After; another client is served', async () => {
    t.clock.advance(61_000)
    const wrong = { authorization: basic(flooded.clientId, 'guess') }
    for (let i = 0; i < 3; i++) expectTokenError(await token(t, { grant_type: 'client_credentials' }, wrong), 'invalid_client')
    const limited = await token(t, { grant_type: 'client_credentials' }, wrong)
    expectTokenError(limited, 'temporarily_unavailable', /too many requests for this client; retry after \d+ seconds/)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // The right secret waits too: guessing must not be able to tell when it has found it.
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, { authorization: basic(flooded.clientId, flooded.secret) }), 'temporarily_unavailable')
    // Revocation, introspection and PAR share the allowance, and answer 503 there.
    const revoke = await t.call('POST', '/oauth2/v3/revoke', {
      headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', authorization: basic(flooded.clientId, flooded.secret) },
      body: 'token=x',
    })
    expect({ status: revoke.status, error: revoke.json.error }).toEqual({ status: 503, error: 'temporarily_unavailable' })
    expect(revoke.headers['retry-after']).toBeDefined()

    const served = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(bystander.clientId, bystander.secret) })
    expect(served.status, served.text).toBe(200)
  })
})
