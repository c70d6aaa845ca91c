// GET and POST /oauth2/v3/authorize: the sign-in and consent pages, their security headers, the errors shown on a
// page and the errors sent back to the client, CSRF, Deny and Allow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_TTL_MS } from '../../src/oauth/authorize/service.js'
import { CUSTOMER_1, CUSTOMER_2 } from '../support/banking.js'
import { startTestApp, type Response, type TestApp } from '../support/harness.js'
import {
  PAGE_HEADERS,
  REDIRECT,
  authorizeCode,
  csp,
  openAuthorize,
  pkce,
  postForm,
  redirected,
  sandboxRequest,
  signIn,
  token,
} from '../support/oauth.js'

let t: TestApp
let partner: { id: string; clientId: string; secret: string }
const PARTNER_REDIRECT = 'https://partner.example/oauth/callback?tenant=7'
const { challenge } = pkce()

beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  const created = await t.app.services.oauth.clients.create({
    name: 'Partner <Reports> & "Co"',
    redirectUris: [PARTNER_REDIRECT],
    scopes: ['reporting'],
    public: false,
  })
  partner = { id: created.client.id, clientId: created.client.publicId!, secret: created.secret! }
})
afterAll(() => t.close())

function expectPageHeaders(res: Response, formActionOrigin?: string) {
  expect(res.headers).toMatchObject({ ...PAGE_HEADERS, 'content-security-policy': csp(formActionOrigin) })
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
}

function expectErrorPage(res: Response, status: number, message: RegExp) {
  expect(res.status, res.text).toBe(status)
  expect(res.headers['location']).toBeUndefined()
  expectPageHeaders(res)
  expect(res.text).toMatch(/<p class="error" id="[^"]*" role="alert">|<p class="error" role="alert">/)
  expect(res.text).toMatch(message)
}

describe('the sign-in page', () => {
  it('is a plain, accessible form with the CSRF token, no script, and strict headers', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    expect(page.status).toBe(200)
    expectPageHeaders(page, 'http://127.0.0.1:8123')
    const html = page.text
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/)
    expect(html.match(/<h1[ >]/g)).toHaveLength(1)
    expect(html).toContain('<label for="username">Username</label>')
    expect(html).toMatch(/<input type="text" id="username" name="username"[^>]* autocomplete="username"/)
    expect(html).toContain('<label for="password">Password</label>')
    expect(html).toMatch(/<input type="password" id="password" name="password"[^>]* autocomplete="current-password"/)
    expect(html).toContain('<form method="post" action="/oauth2/v3/authorize">')
    expect(html).toContain('<button type="submit">Sign in</button>')
    expect(html).toContain('<strong>Sandbox application</strong>')
    // The pending request itself, signed: base64url JSON and a base64url HMAC-SHA256.
    expect(page.csrf).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(html).not.toMatch(/<script|\son\w+=|style=/i)
    expect(html).toMatch(/<link rel="stylesheet" href="\/oauth2\/v3\/assets\/consent\.css\?v=[0-9a-f]{12}">/)
  })

  it('binds the browser with an HttpOnly, SameSite cookie on /oauth2, and keeps an existing one', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const setCookie = String(page.headers['set-cookie'])
    expect(setCookie).toMatch(/^finapi_oauth=[A-Za-z0-9_-]{43}; Path=\/oauth2; HttpOnly; SameSite=Lax; Max-Age=600$/)
    const again = await openAuthorize(t, sandboxRequest(t, challenge), page.cookie)
    expect(again.cookie).toBe(page.cookie)
  })

  it('serves its stylesheet, cacheable for long', async () => {
    const href = /href="([^"]+\.css[^"]*)"/.exec((await openAuthorize(t, sandboxRequest(t, challenge))).text)![1]!
    const css = await t.call('GET', href, { headers: { 'x-svc-key': undefined } })
    expect(css.status).toBe(200)
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(css.text).toContain('max-width: 26rem')
    expect(css.text).toContain(':focus-visible')
  })

  it('serves its icon, so the browser does not ask for a missing /favicon.ico', async () => {
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec((await openAuthorize(t, sandboxRequest(t, challenge))).text)![1]!
    const icon = await t.call('GET', href, { headers: { 'x-svc-key': undefined } })
    expect(icon.status).toBe(200)
    expect(icon.headers['content-type']).toBe('image/svg+xml')
    expect(icon.text).toMatch(/^<svg /)
  })

  it('accepts redirect_url for redirect_uri', async () => {
    const params = sandboxRequest(t, challenge, { redirect_uri: undefined, redirect_url: REDIRECT })
    const { state } = await authorizeCode(t, { params })
    expect(state).toBe('state-123')
  })
})

describe('problems shown on a page (400), never redirected', () => {
  it.each([
    ['an unknown client', { client_id: 'no-such-client' }, /not registered with us/],
    ['no client_id', { client_id: undefined }, /client_id is missing/],
    ['an unregistered https redirect', { redirect_uri: 'https://evil.example/callback' }, /not registered for it/],
    ['an http redirect off the loopback', { redirect_uri: 'http://evil.example/callback' }, /not registered for it/],
    ['a look-alike loopback host', { redirect_uri: 'http://127.0.0.1.evil.example/callback' }, /not registered for it/],
    ['no redirect_uri', { redirect_uri: undefined }, /redirect_uri is missing/],
    ['two different redirect URIs', { redirect_url: 'http://127.0.0.1:9/other' }, /more than one address/],
  ])('%s', async (_label, overrides, message) => {
    expectErrorPage(await openAuthorize(t, sandboxRequest(t, challenge, overrides)), 400, message)
  })

  it('a registered client with a redirect URI that differs in any way', async () => {
    for (const redirect of [`${PARTNER_REDIRECT}&x=1`, PARTNER_REDIRECT.replace('tenant=7', 'tenant=8'), PARTNER_REDIRECT.replace('https', 'http')]) {
      const res = await openAuthorize(t, sandboxRequest(t, challenge, { client_id: partner.clientId, redirect_uri: redirect, scope: 'reporting' }))
      expectErrorPage(res, 400, /not registered for it/)
    }
  })

  it('a revoked client', async () => {
    const { client } = await t.app.services.oauth.clients.create({ name: 'Gone', redirectUris: [REDIRECT], scopes: ['accounts'], public: true })
    await t.app.services.oauth.clients.revoke(client.id)
    expectErrorPage(await openAuthorize(t, sandboxRequest(t, challenge, { client_id: client.publicId! })), 400, /withdrawn/)
  })
})

describe('problems sent back to the client', () => {
  it.each([
    ['response_type token', 'unsupported_response_type', 'response_type must be code', { response_type: 'token' }],
    ['no response_type', 'invalid_request', 'response_type is required', { response_type: undefined }],
    ['no code_challenge', 'invalid_request', 'code_challenge is required (PKCE with S256)', { code_challenge: undefined }],
    ['the plain PKCE method', 'invalid_request', 'code_challenge_method must be S256', { code_challenge_method: 'plain' }],
    ['no PKCE method', 'invalid_request', 'code_challenge_method must be S256', { code_challenge_method: undefined }],
    ['a malformed challenge', 'invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code_verifier', { code_challenge: 'abc' }],
    ['an unknown scope', 'invalid_scope', 'the client may not ask for payments', { scope: 'accounts payments' }],
  ])('%s → %s, with the state', async (_label, error, description, overrides) => {
    const res = await openAuthorize(t, sandboxRequest(t, challenge, { state: 'a b&c=d', ...overrides }))
    expect(redirected(res)).toEqual({ error, error_description: description, state: 'a b&c=d' })
  })

  it('a scope the client may not ask for → invalid_scope at its own redirect URI, keeping its query', async () => {
    const res = await openAuthorize(t, sandboxRequest(t, challenge, { client_id: partner.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'accounts', state: 's1' }))
    expect(res.status).toBe(303)
    const iss = encodeURIComponent(t.baseUrl)
    expect(res.headers['location']).toBe(`${PARTNER_REDIRECT}&error=invalid_scope&error_description=the+client+may+not+ask+for+accounts&state=s1&iss=${iss}`)
  })

  it('without a state, none is added', async () => {
    const res = await openAuthorize(t, sandboxRequest(t, challenge, { state: undefined, response_type: 'token' }))
    expect(redirected(res)).toEqual({ error: 'unsupported_response_type', error_description: 'response_type must be code' })
  })
})

describe('signing in', () => {
  it.each([
    ['a wrong password', { ...CUSTOMER_1, password: 'wrong' }],
    ['an unknown user', { ...CUSTOMER_1, username: '99999999' }],
    ['an empty password', { ...CUSTOMER_1, password: '' }],
  ])('%s → the sign-in page again, with one generic error tied to the fields', async (_label, who) => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const res = await signIn(t, page, who)
    expect(res.status).toBe(200)
    expectPageHeaders(res, 'http://127.0.0.1:8123')
    expect(res.text).toContain('<p class="error" id="sign-in-error" role="alert">That username and password did not work. Check them and try again.</p>')
    expect(res.text).toMatch(/id="username"[^>]* aria-describedby="sign-in-error" aria-invalid="true"/)
    expect(res.text).toMatch(/id="password"[^>]* aria-describedby="sign-in-error" aria-invalid="true"/)
    // The same request can still be completed.
    expect(res.csrf).toBe(page.csrf)
    const consent = await signIn(t, res)
    expect(consent.text).toContain('<button type="submit" name="decision" value="allow">Allow</button>')
  })

  it('keeps the username typed, escaped', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const res = await signIn(t, page, { ...CUSTOMER_1, username: '"><script>x</script>', password: 'x' })
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"')
    expect(res.text).not.toContain('<script>')
  })

  it('uses the brand and lob of the request (default nab/nab)', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { brand: 'ubank', lob: 'ubank' }))
    const res = await signIn(t, page)
    expect(res.text).toContain('role="alert"')
  })
})

describe('the consent page', () => {
  it('names the client and what it asks for, in plain words, with Deny and Allow', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { scope: 'accounts reporting' }))
    const consent = await signIn(t, page)
    expect(consent.status).toBe(200)
    expectPageHeaders(consent, 'http://127.0.0.1:8123')
    expect(consent.text.match(/<h1[ >]/g)).toHaveLength(1)
    expect(consent.text).toContain('<h1>Allow Sandbox application to access your banking?</h1>')
    expect(consent.text).toContain('<li>See your accounts, their balances and their details</li>')
    expect(consent.text).toContain('<li>Read your merchant reports: transactions, fundings and settlements</li>')
    expect(consent.text).toContain('you go back to Sandbox application at 127.0.0.1:8123')
    expect(consent.text).toContain('<button type="submit" name="decision" value="deny" class="secondary">Deny</button>')
    expect(consent.text).toContain('<button type="submit" name="decision" value="allow">Allow</button>')
    // Signing in moves the request to a new token: the sign-in page's token is spent.
    expect(consent.csrf).not.toBe(page.csrf)
  })

  it('escapes the client name, and allows the redirect origin as a form target', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { client_id: partner.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'reporting' }))
    expect(page.text).toContain('Partner &lt;Reports&gt; &amp; &quot;Co&quot;')
    const consent = await signIn(t, page)
    expect(consent.text).toContain('<h1>Allow Partner &lt;Reports&gt; &amp; &quot;Co&quot; to access your banking?</h1>')
    expectPageHeaders(consent, 'https://partner.example')
  })

  it('Deny → 303 to the client with access_denied and the state; no code exists', async () => {
    const before = await t.db.kysely.selectFrom('oauth_codes').select('code_hash').execute()
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { state: 'deny-state' }))
    const consent = await signIn(t, page)
    const res = await postForm(t, { csrf_token: consent.csrf, decision: 'deny' }, page.cookie)
    expect(redirected(res)).toEqual({ error: 'access_denied', error_description: 'the account holder denied access', state: 'deny-state' })
    expect(await t.db.kysely.selectFrom('oauth_codes').select('code_hash').execute()).toHaveLength(before.length)
    // The request is answered: it cannot be allowed afterwards.
    const again = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie)
    expectErrorPage(again, 403, /expired, was already answered/)
  })

  it('Allow → 303 to the client with a code and the state, stored only as a hash', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { state: 'allow-state' }))
    const consent = await signIn(t, page)
    const res = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie)
    const query = redirected(res)
    expect(Object.keys(query).sort()).toEqual(['code', 'state'])
    expect(query['state']).toBe('allow-state')
    expect(query['code']).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const dump = JSON.stringify(await t.db.kysely.selectFrom('oauth_codes').selectAll().execute())
    expect(dump).not.toContain(query['code'])
    expect(JSON.stringify(await t.db.kysely.selectFrom('oauth_consents').selectAll().execute())).not.toContain(page.csrf!)
  })

  it('the code belongs to whoever signed in', async () => {
    const { verifier, challenge: c2 } = pkce()
    const { code } = await authorizeCode(t, { params: sandboxRequest(t, c2), who: CUSTOMER_2 })
    const tokens = await token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier })
    const resolved = await t.app.services.identity.resolvePrincipal(tokens.json.access_token)
    expect(resolved).toMatchObject({ source: 'oauth', customerId: 'sandbox-customer-2', scopes: ['accounts'], clientId: 'sandbox', applicationId: 'sandbox' })
  })

  it('an unknown decision → 400 page', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const consent = await signIn(t, page)
    expectErrorPage(await postForm(t, { csrf_token: consent.csrf, decision: 'maybe' }, page.cookie), 400, /Allow or Deny/)
  })
})

describe('CSRF and the pending request', () => {
  it.each([
    ['no CSRF token', (p: { csrf?: string; cookie?: string }) => ({ fields: { csrf_token: undefined }, cookie: p.cookie })],
    ['a wrong CSRF token', (p: { csrf?: string; cookie?: string }) => ({ fields: { csrf_token: p.csrf!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, cookie: p.cookie })],
    ['no cookie', (p: { csrf?: string; cookie?: string }) => ({ fields: { csrf_token: p.csrf }, cookie: undefined })],
    ['another browser\'s cookie', (p: { csrf?: string; cookie?: string }) => ({ fields: { csrf_token: p.csrf }, cookie: `finapi_oauth=${'x'.repeat(43)}` })],
  ])('sign-in with %s → 403 page, nothing signed in', async (_label, forge) => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const { fields, cookie } = forge(page)
    const res = await postForm(t, { ...fields, username: CUSTOMER_1.username, password: CUSTOMER_1.password }, cookie)
    expectErrorPage(res, 403, /expired, was already answered, or was opened in another browser/)
    // The real page still works.
    expect((await signIn(t, page)).text).toContain('Allow')
  })

  it('Allow with the sign-in page\'s token, or without the cookie → 403', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const consent = await signIn(t, page)
    expectErrorPage(await postForm(t, { csrf_token: page.csrf, decision: 'allow' }, page.cookie), 403, /expired/)
    expectErrorPage(await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, undefined), 403, /expired/)
    redirected(await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie))
  })

  it('two flows in one browser do not disturb each other', async () => {
    const first = await openAuthorize(t, sandboxRequest(t, challenge, { state: 'one' }))
    const second = await openAuthorize(t, sandboxRequest(t, challenge, { state: 'two' }), first.cookie)
    const consentTwo = await signIn(t, second)
    const consentOne = await signIn(t, first)
    expect(redirected(await postForm(t, { csrf_token: consentOne.csrf, decision: 'allow' }, first.cookie))['state']).toBe('one')
    expect(redirected(await postForm(t, { csrf_token: consentTwo.csrf, decision: 'allow' }, first.cookie))['state']).toBe('two')
  })

  it('100 unauthenticated GETs write no row: the request waits in the page until someone signs in', async () => {
    const count = async () => Number((await t.db.kysely.selectFrom('oauth_consents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const before = await count()
    const pages = await Promise.all(Array.from({ length: 100 }, (_, i) => openAuthorize(t, sandboxRequest(t, challenge, { state: `s${i}` }))))
    for (const page of pages) expect(page.status).toBe(200)
    expect(await count()).toBe(before)
    await signIn(t, pages[0]!, { ...CUSTOMER_1, password: 'wrong' })
    expect(await count()).toBe(before) // nor does a failed sign-in
    await signIn(t, pages[0]!)
    expect(await count()).toBe(before + 1)
  })

  it('a sign-in page is spent by its sign-in, also by two at once', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const both = await Promise.all([signIn(t, page), signIn(t, page)])
    expect(both.map((p) => p.status).sort()).toEqual([200, 403])
    expectErrorPage(await signIn(t, page), 403, /expired, was already answered/)
  })

  it('expires after 10 minutes', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    t.clock.advance(CONSENT_TTL_MS)
    expectErrorPage(await signIn(t, page), 403, /expired/)
  })

  it('a JSON body is refused with a page', async () => {
    const page = await openAuthorize(t, sandboxRequest(t, challenge))
    const res = await t.call('POST', '/oauth2/v3/authorize', { headers: { cookie: page.cookie, 'x-svc-key': undefined }, body: { csrf_token: page.csrf } })
    expectErrorPage(res, 400, /malformed/)
  })
})
