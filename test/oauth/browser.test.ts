// The whole authorization code flow in headless Chromium, as an account holder and a client see it: open the
// authorize URL, sign in as sandbox customer 1, allow, follow the redirect to a local client, exchange the code,
// read the accounts with the token. The consent page's screenshot is saved to test-artifacts/consent.png.
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { CUSTOMER_1, expectStatus, login, withToken } from '../support/banking.js'
import { describeWithBrowser, launchChromium } from '../support/browser.js'
import { call, startTestApp, type TestApp } from '../support/harness.js'
import { authorizePath, basic, pkce, token } from '../support/oauth.js'

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url))

describeWithBrowser('OAuth consent in headless Chromium', () => {
  let t: TestApp | undefined
  let browser: Browser | undefined
  let client: Server | undefined
  let redirectUri = ''
  /** What the local client received on its redirect URI. */
  let received: (query: URLSearchParams) => void = () => {}

  beforeAll(async () => {
    // Strict tokens: the access token is really checked, not read as the sandbox's any-string customer.
    t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
    browser = await launchChromium()
    client = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (url.pathname === '/callback') received(url.searchParams)
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Client</title><h1>Back at the client</h1>')
    })
    await new Promise<void>((resolve) => client!.listen(0, '127.0.0.1', resolve))
    redirectUri = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => (client ? client.close(resolve) : resolve(undefined)))
    await t?.close()
  })

  it('signs in, allows, and the client reads customer 1\'s accounts with the token', async () => {
    const app = t!
    const { verifier, challenge } = pkce()
    const state = randomBytes(12).toString('base64url')
    const redirected = new Promise<URLSearchParams>((resolve) => (received = resolve))

    const page = await browser!.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    // A Content-Security-Policy violation (a blocked stylesheet, a blocked form target) is a console error.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`)
    })

    const authorizeUrl =
      app.baseUrl +
      authorizePath({
        response_type: 'code',
        client_id: app.sandboxKey,
        redirect_uri: redirectUri,
        scope: 'accounts',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
    expect((await page.goto(authorizeUrl))?.status()).toBe(200)
    await page.getByLabel('Username').fill(CUSTOMER_1.username)
    await page.getByLabel('Password').fill(CUSTOMER_1.password)
    await page.getByRole('button', { name: 'Sign in' }).click()

    const heading = page.getByRole('heading', { level: 1 })
    await expect.poll(() => heading.textContent()).toBe('Allow Sandbox application to access your banking?')
    expect(await page.getByRole('listitem').allTextContents()).toEqual(['See your accounts, their balances and their details'])
    expect(await page.getByRole('button', { name: 'Deny' }).isVisible()).toBe(true)
    // The stylesheet loaded under the page's CSP: the card is 26rem wide at most.
    expect(await page.locator('main').evaluate((main) => getComputedStyle(main).maxWidth)).toBe('416px')
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: `${ARTIFACTS}consent.png`, fullPage: true })

    await page.getByRole('button', { name: 'Allow' }).click()
    const query = await redirected
    await page.getByRole('heading', { name: 'Back at the client' }).waitFor()
    expect(query.get('state')).toBe(state)
    const code = query.get('code')
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(problems).toEqual([])

    const tokens = await token(app, { grant_type: 'authorization_code', client_id: app.sandboxKey, code: code!, redirect_uri: redirectUri, code_verifier: verifier })
    expect(tokens.status, tokens.text).toBe(200)

    const accounts = await call(app.baseUrl, app.sandboxKey, 'GET', '/v2/accounts?v=1', {
      headers: { 'user-agent': 'finapi-browser-test/1.0', authorization: tokens.json.access_token },
    })
    expectStatus(accounts, 200, 'API-200')
    // The same accounts customer 1 sees after signing in with the password.
    const byPassword = await withToken(app, await login(app))('GET', '/v2/accounts?v=1')
    const display = (res: typeof accounts) => res.json.accountsResponse.accounts.map((a: { accountIdDisplay: string }) => a.accountIdDisplay)
    expect(display(accounts)).toContain('083047-880169858')
    expect(display(accounts)).toEqual(display(byPassword))
  })

  it('a pushed request (PAR) with PKCE: the client pushes, the browser carries only client_id and request_uri', async () => {
    const app = t!
    const { client, secret } = await app.app.services.oauth.clients.create({ name: 'Pushing partner', redirectUris: [redirectUri], scopes: ['accounts'], public: false, requirePar: true })
    const auth = { authorization: basic(client.publicId!, secret!) }
    const { verifier, challenge } = pkce()
    const state = randomBytes(12).toString('base64url')
    const pushed = await app.call('POST', '/oauth2/v3/par', {
      headers: { ...auth, 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', redirect_uri: redirectUri, scope: 'accounts', state, code_challenge: challenge, code_challenge_method: 'S256' }).toString(),
    })
    expect(pushed.status, pushed.text).toBe(201)
    const redirected = new Promise<URLSearchParams>((resolve) => (received = resolve))

    const page = await browser!.newPage()
    const url = `${app.baseUrl}${authorizePath({ client_id: client.publicId!, request_uri: pushed.json.request_uri })}`
    expect((await page.goto(url))?.status()).toBe(200)
    await page.getByLabel('Username').fill(CUSTOMER_1.username)
    await page.getByLabel('Password').fill(CUSTOMER_1.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Pushing partner to access your banking?')
    await page.getByRole('button', { name: 'Allow' }).click()
    const query = await redirected
    expect(query.get('state')).toBe(state)
    expect(query.get('iss')).toBe(app.baseUrl)

    const tokens = await token(app, { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: redirectUri, code_verifier: verifier }, auth)
    expect(tokens.status, tokens.text).toBe(200)
    // The request_uri was spent by the first visit.
    expect((await page.goto(url))?.status()).toBe(400)
  })
})
