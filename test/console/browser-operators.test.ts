// The operators' pages in headless Chromium: a merchant user made an operator through the service `finapi users
// grant-operator` calls signs in, sees the organization tree, creates a merchant user, a reporting key and an OAuth
// client (each secret shown once) and revokes them; testrest, no operator, gets 404 on those pages and no link to
// them; and axe-core on every operator page at desktop and phone sizes finds no serious or critical problem.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithBrowser } from '../support/browser.js'
import { axeProblems, consolePage, signInThroughForm, SIZES } from '../support/console-chromium.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'

describeWithBrowser('the operators’ pages in headless Chromium', () => {
  let t: TestApp
  let browser: Browser
  let page: Page
  let password: string
  const visited = new Set<string>()

  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
    password = (await t.app.services.merchantUsers.create({ organizationId: 'testrest_acct', username: 'browser-operator' })).password
    await t.app.services.merchantUsers.setOperator('browser-operator', true)
    ;({ browser, page } = await consolePage())
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  async function open(path: string) {
    const res = await page.goto(t.baseUrl + path)
    visited.add(path)
    return res
  }

  async function signIn(username: string, secret: string) {
    await page.context().clearCookies()
    await signInThroughForm(page, t.baseUrl, username, secret)
  }

  /** The value shown once beside `term`. */
  const shownOnce = async (term: string) => (await page.locator(`dt:text-is("${term}") + dd code`).textContent())!

  it('gives testrest, no operator, 404 on the operators’ pages and no link to them', async () => {
    await signIn('testrest', 'Testrest-1')
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operators' }).count()).toBe(0)
    for (const path of ['/console/operators', '/console/operators/users', '/console/operators/keys', '/console/operators/clients']) {
      expect((await page.goto(t.baseUrl + path))?.status(), path).toBe(404)
    }
  })

  it('signs the operator in: the tree, with a new organization under a parent', async () => {
    await signIn('browser-operator', password)
    visited.add('/console')
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operators' }).click()
    await page.waitForURL(`${t.baseUrl}/console/operators`)
    visited.add('/console/operators')
    expect(await page.getByRole('row', { name: /testrest_acct/ }).first().textContent()).toContain('account')
    await page.getByLabel(/^Id/).fill('browser_merchant')
    await page.getByLabel(/^Name/).fill('Browser merchant')
    await page.getByLabel('Type').selectOption('merchant')
    await page.getByLabel(/^Parent/).selectOption('testrest_acct')
    await page.getByRole('button', { name: 'Create the organization' }).click()
    await page.waitForURL(`${t.baseUrl}/console/operators`)
    const row = page.getByRole('row', { name: /browser_merchant/ })
    expect(await row.textContent()).toContain('testrest_acct')
    // A refused form: the reason, on the page, as an alert.
    await page.getByLabel(/^Id/).fill('browser_merchant')
    await page.getByRole('button', { name: 'Create the organization' }).click()
    expect(await page.getByRole('alert').textContent()).toContain('organization browser_merchant exists')
    visited.add('/console/operators?refused')
  })

  it('creates a merchant user (password shown once, it signs in) and revokes them', async () => {
    await open('/console/operators/users')
    await page.getByLabel('Organization', { exact: true }).selectOption('browser_merchant')
    await page.getByLabel(/^Username/).fill('browser-bob')
    await page.getByRole('button', { name: 'Create the merchant user' }).click()
    expect(await page.getByRole('status').textContent()).toContain('it is not shown again')
    const bobPassword = await shownOnce('Password')
    visited.add('/console/operators/users?shown')
    const bob = await browser.newContext()
    const bobPage = await bob.newPage()
    await bobPage.goto(t.baseUrl + '/console/sign-in')
    await bobPage.getByLabel('Username').fill('browser-bob')
    await bobPage.getByLabel('Password').fill(bobPassword)
    await bobPage.getByRole('button', { name: 'Sign in' }).click()
    await bobPage.waitForURL(`${t.baseUrl}/console`)

    await open('/console/operators/users?org=browser_merchant')
    await page.getByRole('button', { name: 'Revoke browser-bob' }).click()
    await page.waitForURL(`${t.baseUrl}/console/operators/users?org=browser_merchant`)
    expect(await page.getByRole('row', { name: /browser-bob/ }).textContent()).toContain('revoked')
    // Bob's session ended with the revocation.
    await bobPage.goto(t.baseUrl + '/console')
    expect(new URL(bobPage.url()).pathname).toBe('/console/sign-in')
    await bob.close()
  })

  it('creates a reporting key (secret shown once) and revokes it', async () => {
    await open('/console/operators/keys')
    await page.getByLabel('Organization', { exact: true }).selectOption('browser_merchant')
    await page.getByRole('button', { name: 'Create the key' }).click()
    const keyId = await shownOnce('Key id')
    expect(await shownOnce('Shared secret')).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    visited.add('/console/operators/keys?shown')
    expect((await t.app.services.reportingKeys.list()).find((k) => k.id === keyId)?.status).toBe('active')
    await page.getByRole('link', { name: 'Back to the list' }).click()
    await page.getByRole('button', { name: `Revoke key ${keyId}` }).click()
    await page.waitForURL(`${t.baseUrl}/console/operators/keys?org=browser_merchant`)
    expect((await t.app.services.reportingKeys.list()).find((k) => k.id === keyId)?.status).toBe('revoked')
  })

  it('registers an OAuth client (client secret shown once) and revokes it', async () => {
    await open('/console/operators/clients')
    await page.getByLabel(/^Name/).fill('Browser client')
    await page.getByLabel(/^Organization \(/).selectOption('browser_merchant')
    await page.getByRole('button', { name: 'Register the client' }).click()
    const clientId = await shownOnce('client_id')
    expect(await shownOnce('client_secret')).toMatch(/^fcs_/)
    visited.add('/console/operators/clients?shown')
    await page.getByRole('link', { name: 'Back to the list' }).click()
    await page.getByRole('button', { name: 'Revoke client Browser client' }).click()
    await page.waitForURL(`${t.baseUrl}/console/operators/clients?org=browser_merchant`)
    expect((await t.app.services.oauth.clients.list()).find((c) => c.publicId === clientId)?.revokedAt).not.toBeNull()
  })

  it('has no serious or critical accessibility problem on any operator page, at desktop and phone sizes', async () => {
    const problems: string[] = []
    // The pages answering a form (a secret shown, a refusal) are checked as they were rendered, at each size.
    const forms: Record<string, () => Promise<void>> = {
      '/console/operators?refused': () => submit('/console/operators', { 'Id (': 'browser_merchant' }, 'Create the organization'),
      '/console/operators/users?shown': () => submit('/console/operators/users', { 'Username (': `browser-${Date.now()}` }, 'Create the merchant user'),
      '/console/operators/keys?shown': () => submit('/console/operators/keys', {}, 'Create the key'),
      '/console/operators/clients?shown': () => submit('/console/operators/clients', { 'Name (': 'Axe client' }, 'Register the client'),
    }
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      for (const path of visited) {
        if (forms[path]) await forms[path]()
        else await page.goto(t.baseUrl + path)
        problems.push(...(await axeProblems(page, `${size} ${path}`)))
      }
    }
    expect(problems).toEqual([])
  }, 120_000)

  async function submit(path: string, labels: Record<string, string>, button: string) {
    await page.goto(t.baseUrl + path)
    for (const [label, value] of Object.entries(labels)) await page.getByLabel(new RegExp(`^${label.replace('(', '\\(')}`)).fill(value)
    await page.getByRole('button', { name: button }).click()
    await page.waitForLoadState()
  }
})
