// The consent pages as a person reads them: in the sandbox, a banner with the test sign-in for the page's audience;
// the client's name and site in plain words, how long access lasts and how to withdraw it; a cancel on the sign-in
// form that sends the client access_denied. Production shows no sandbox hint. In Chromium on a phone too, with axe.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CUSTOMER_1 } from '../support/banking.js'
import { axeViolations } from '../support/axe.js'
import { describeWithBrowser, launchChromium } from '../support/browser.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { REDIRECT, authorizePath, openAuthorize, pkce, postForm, redirected, sandboxRequest, signIn } from '../support/oauth.js'
import { PARTNER_CLIENT, PARTNER_REDIRECT } from '../support/reporting-oauth.js'

let t: TestApp
let production: TestApp
let productionClientId = ''
beforeAll(async () => {
  t = await startTestApp()
  production = await startTestApp({ env: { MODE: 'production', SECRETS_KEY: 'a-production-secrets-key-of-at-least-32-characters' } })
  const made = await production.app.services.oauth.clients.create({ name: 'Budget app', redirectUris: [REDIRECT], scopes: ['accounts'], public: true })
  productionClientId = made.client.publicId!
})
afterAll(async () => {
  await t.close()
  await production.close()
})

const open = () => openAuthorize(t, sandboxRequest(t, pkce().challenge))

describe('the sandbox consent pages', () => {
  it('the sign-in page shows the sandbox banner with the test sign-in of its audience', async () => {
    const banking = await open()
    expect(banking.text).toContain('<strong>Sandbox</strong>: test data only. Sign in as <code>10055670</code> with the password <code>aaa111</code>.')
    const merchant = await openAuthorize(t, { response_type: 'code', client_id: PARTNER_CLIENT.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'reporting', code_challenge: pkce().challenge, code_challenge_method: 'S256' })
    expect(merchant.text).toContain('Sign in as <code>testrest</code> with the password <code>Testrest-1</code>.')
  })

  it('the consent page names the client and its site in plain words, how long access lasts and how to withdraw it', async () => {
    const consent = await signIn(t, await open())
    expect(consent.text).toContain('Either way, you go back to Sandbox application at 127.0.0.1:8123.')
    expect(consent.text).toContain('Access lasts up to a year while Sandbox application keeps using it. You can withdraw it at any time')
    expect(consent.text).not.toContain('sent back to')
  })

  it('Cancel on the sign-in form sends the client access_denied with its state, and spends the page', async () => {
    const page = await open()
    const cancelled = await postForm(t, { csrf_token: page.csrf, decision: 'cancel' }, page.cookie)
    expect(cancelled.status).toBe(303)
    expect(redirected(cancelled)).toEqual({ error: 'access_denied', error_description: 'the person cancelled the sign-in', state: 'state-123' })
    // The same page cannot be signed in with afterwards.
    const again = await signIn(t, page)
    expect(again.status).toBe(403)
    expect(again.text).not.toContain('Allow Sandbox application')
  })

  it('Cancel from another browser (without the page’s cookie) is refused like any stale form', async () => {
    const page = await open()
    const res = await postForm(t, { csrf_token: page.csrf, decision: 'cancel' }, undefined)
    expect(res.status).toBe(403)
    expect(res.headers['location']).toBeUndefined()
  })
})

describe('production consent pages', () => {
  it('show no sandbox banner and no test sign-in', async () => {
    const page = await openAuthorize(production, { response_type: 'code', client_id: productionClientId, redirect_uri: REDIRECT, scope: 'accounts', code_challenge: pkce().challenge, code_challenge_method: 'S256' })
    expect(page.status, page.text).toBe(200)
    expect(page.text).toContain('Sign in to continue')
    expect(page.text).not.toMatch(/sandbox|10055670|aaa111|Testrest-1/i)
  })
})

describeWithBrowser('the consent pages in headless Chromium', () => {
  let browser: Browser | undefined
  let client: Server | undefined
  let redirectUri = ''
  beforeAll(async () => {
    browser = await launchChromium()
    client = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Client</title><h1>Back at the client</h1>'))
    await new Promise<void>((resolve) => client!.listen(0, '127.0.0.1', resolve))
    redirectUri = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => (client ? client.close(resolve) : resolve(undefined)))
  })

  const authorizeUrl = () => t.baseUrl + authorizePath({ ...sandboxRequest(t, pkce().challenge), redirect_uri: redirectUri })

  for (const [device, viewport] of [['a desktop', { width: 1280, height: 800 }], ['a phone', { width: 375, height: 667 }]] as const) {
    it(`on ${device}: the banner, the sign-in, the consent page, each without an accessibility violation or overflow`, async () => {
      const page = await browser!.newPage({ viewport })
      expect((await page.goto(authorizeUrl()))?.status()).toBe(200)
      expect(await page.getByRole('note').textContent()).toBe('Sandbox: test data only. Sign in as 10055670 with the password aaa111.')
      expect(await axeViolations(page)).toEqual([])
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
      await page.getByLabel('Username').fill(CUSTOMER_1.username)
      await page.getByLabel('Password').fill(CUSTOMER_1.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Allow Sandbox application to access your banking?' }).waitFor()
      expect(await page.getByText('Access lasts up to a year').isVisible()).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
      await page.close()
    })
  }

  it('Cancel, with the fields empty, goes back to the client with access_denied', async () => {
    const page = await browser!.newPage()
    await page.goto(authorizeUrl())
    await page.getByRole('button', { name: 'Cancel and go back to Sandbox application' }).click()
    await page.getByRole('heading', { name: 'Back at the client' }).waitFor()
    const back = new URL(page.url())
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('state-123')
    await page.close()
  })
})
