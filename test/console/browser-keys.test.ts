// The API keys and request log pages in headless Chromium, as a merchant uses them on a server recording calls
// (REQUEST_LOG=on): sign in as testrest, create a key and read its secret (shown once), sign a reporting call with it,
// find that call in the request log by the correlation id the API answered, revoke the key and see the next signed
// call refused; and axe-core on each of these pages at desktop and phone sizes, finding no serious or critical problem.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithBrowser } from '../support/browser.js'
import { axeProblems, axeProblemsOn, consolePage, SIZES } from '../support/console-chromium.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { signedCall } from '../support/reporting.js'

const DEFINITIONS = '/reporting/v3/report-definitions'

describeWithBrowser('the API keys and request log pages in headless Chromium', () => {
  let t: TestApp
  let browser: Browser
  let page: Page
  const visited = new Set<string>()
  let key: { id: string; secret: string; org: string }
  let correlationId: string

  beforeAll(async () => {
    t = await startTestApp({ env: { REQUEST_LOG: 'on' } })
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

  it('signs testrest in', async () => {
    await open('/console/sign-in')
    await page.getByLabel('Username').fill('testrest')
    await page.getByLabel('Password').fill('Testrest-1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${t.baseUrl}/console`)
  })

  it('creates a key, shows its secret once, and the key signs a reporting call at once', async () => {
    await open('/console/keys')
    await page.getByRole('button', { name: 'Create a shared-secret key' }).click()
    await page.waitForURL(`${t.baseUrl}/console/keys`)
    expect(await page.textContent('main')).toContain('Copy the secret now; it is not shown again.')
    key = { id: (await page.textContent('#key-id'))!, secret: (await page.textContent('#key-secret'))!, org: 'testrest' }
    expect(Buffer.from(key.secret, 'base64')).toHaveLength(32)
    // The list, opened again, shows the key but never its secret.
    await open('/console/keys')
    const row = page.getByRole('row', { name: new RegExp(key.id) })
    expect(await row.textContent()).toContain('Active')
    expect(await page.content()).not.toContain(key.secret)

    const res = await signedCall(t, { method: 'GET', path: DEFINITIONS, key })
    expect(res.status, res.text).toBe(200)
    correlationId = String(res.headers['x-correlationid'])
    expect(correlationId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('finds that call in the request log by its correlation id', async () => {
    await open('/console/requests')
    expect(await page.getByRole('row', { name: new RegExp(correlationId) }).count()).toBe(1)
    await page.getByLabel(/^Correlation id/).fill(correlationId)
    await page.getByRole('button', { name: 'Find the call' }).click()
    await page.waitForURL(`${t.baseUrl}/console/requests/${correlationId}`)
    visited.add(`/console/requests/${correlationId}`)
    const main = await page.textContent('main')
    expect(main).toContain(DEFINITIONS)
    expect(main).toContain(key.id)
    expect(main).toContain('http_signature')
    await page.getByRole('link', { name: 'Every call with this key' }).click()
    visited.add(`/console/requests?keyId=${key.id}`)
    expect(await page.getByRole('row', { name: new RegExp(correlationId) }).count()).toBe(1)
  })

  it('revokes the key, and the next signed call is refused', async () => {
    await open('/console/keys')
    await page.getByRole('button', { name: `Revoke ${key.id}` }).click()
    await page.waitForURL(`${t.baseUrl}/console/keys`)
    expect(await page.getByRole('row', { name: new RegExp(key.id) }).textContent()).toContain('Revoked')
    expect((await signedCall(t, { method: 'GET', path: DEFINITIONS, key })).status).toBe(401)
  })

  it('refuses a malformed certificate with one line', async () => {
    await open('/console/keys')
    await page.getByLabel(/^Certificate/).fill('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')
    await page.getByRole('button', { name: 'Register the certificate' }).click()
    expect(await page.getByRole('alert').textContent()).toMatch(/^The certificate was not registered: is not an X\.509 certificate/)
  })

  it('has no serious or critical accessibility problem on these pages, at desktop and phone sizes', async () => {
    const problems: string[] = []
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      problems.push(...(await axeProblemsOn(page, t.baseUrl, size, visited)))
      // The pages answering a form: the new key's secret, and a refused certificate.
      await page.goto(t.baseUrl + '/console/keys')
      await page.getByRole('button', { name: 'Create a shared-secret key' }).click()
      await page.waitForURL(`${t.baseUrl}/console/keys`)
      problems.push(...(await axeProblems(page, `${size} new key`)))
      await page.getByLabel(/^Certificate/).fill('not a certificate')
      await page.getByRole('button', { name: 'Register the certificate' }).click()
      await page.getByRole('alert').waitFor()
      problems.push(...(await axeProblems(page, `${size} refused certificate`)))
    }
    expect(problems).toEqual([])
  }, 120_000)
})
