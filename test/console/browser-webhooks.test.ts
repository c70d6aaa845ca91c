// The console's webhook pages in headless Chromium, as a merchant uses them: sign in as testrest; create a signing
// key (its secret shown once); create a webhook subscription pointing to a local receiver; send a test, let the jobs
// run until it is delivered, and see its attempt in the delivery log (HTTP 200 and the receiver's answer); replay it
// and see the second attempt; revoke the key; and axe-core on every webhook page at desktop and phone sizes.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithBrowser } from '../support/browser.js'
import { axeProblems, axeProblemsOn, consolePage, signInThroughForm, SIZES } from '../support/console-chromium.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { startReceiver, vcSignatureValid, type Receiver } from '../support/webhooks.js'

describeWithBrowser('the console’s webhook pages in headless Chromium', () => {
  let t: TestApp
  let receiver: Receiver
  let browser: Browser
  let page: Page
  let keyId = ''
  let secret = ''
  const visited = new Set<string>()

  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
    receiver = await startReceiver()
    receiver.answer = () => ({ status: 200, body: 'received, thank you' })
    ;({ browser, page } = await consolePage())
  })
  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
    await t?.close()
  })

  async function open(path: string) {
    const res = await page.goto(t.baseUrl + path)
    visited.add(path)
    return res
  }
  const main = async () => (await page.textContent('main')) ?? ''

  it('signs testrest in and creates a signing key, its secret shown once', async () => {
    await signInThroughForm(page, t.baseUrl)
    await page.getByRole('link', { name: 'Webhooks' }).first().click()
    await page.waitForURL(`${t.baseUrl}/console/webhooks`)
    visited.add('/console/webhooks')
    await page.getByRole('link', { name: 'Signing keys' }).click()
    visited.add('/console/webhooks/keys')
    await page.getByLabel(/^Your reference/).fill('browser key')
    await page.getByRole('button', { name: 'Create a signing key' }).click()
    await page.waitForURL(`${t.baseUrl}/console/webhooks/keys`)
    expect(await main()).toContain('it is not shown again')
    secret = (await page.textContent('#secret'))!.trim()
    keyId = (await page.locator('dd code').first().textContent())!.trim()
    expect(Buffer.from(secret, 'base64')).toHaveLength(32)
    await open('/console/webhooks/keys')
    expect(await main()).toContain(keyId)
    expect(await main()).not.toContain(secret)
  })

  it('creates a subscription pointing to the local receiver, seen through the signed API', async () => {
    await open('/console/webhooks/new')
    await page.getByLabel('Name', { exact: true }).fill('browser receiver')
    await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/browser`)
    await page.getByRole('checkbox', { name: /^Invoice sent \(/ }).check()
    await page.getByRole('button', { name: 'Create the subscription' }).click()
    await page.waitForURL(`${t.baseUrl}/console/webhooks`)
    expect(await main()).toContain('browser receiver')
    const api = await signedCall(t, { method: 'GET', path: '/notification-subscriptions/v2/webhooks?organizationId=testrest', key: TESTREST_KEY })
    expect(api.json).toHaveLength(1)
    expect(api.json[0]).toMatchObject({ name: 'browser receiver', status: 'ACTIVE', webhookUrl: `${receiver.url}/browser` })
    await page.getByRole('link', { name: 'browser receiver' }).click()
    visited.add(new URL(page.url()).pathname)
  })

  it('sends a test, delivered by the jobs, and sees its attempt; replays it and sees the second', async () => {
    await page.getByRole('button', { name: 'Send a test notification' }).click()
    await page.waitForURL(/\/console\/webhooks\/deliveries\/[0-9a-f-]{36}$/)
    const detail = new URL(page.url()).pathname
    // A row before its attempt, delivered by a job (perhaps already: the form wakes the jobs).
    expect(await main()).toMatch(/PENDING|DELIVERED/)
    // Run the jobs (the fake clock stands still: what is due now) until the receiver has it.
    for (let i = 0; i < 5 && receiver.received.length === 0; i++) await t.app.services.jobs.runDue()
    expect(receiver.received).toHaveLength(1)
    expect(vcSignatureValid(receiver.received[0]!, { [keyId]: secret })).toBe(true)
    await open('/console/webhooks/deliveries')
    const row = page.getByRole('row', { name: /webhook\.test/ })
    expect(await row.textContent()).toContain('HTTP 200')
    expect(await row.textContent()).toContain('received, thank you')
    await open(detail)
    expect(await main()).toContain('DELIVERED')
    await page.getByRole('button', { name: 'Replay this notification' }).click()
    await page.waitForURL(`${t.baseUrl}${detail}`)
    for (let i = 0; i < 5 && receiver.received.length < 2; i++) await t.app.services.jobs.runDue()
    expect(receiver.received).toHaveLength(2)
    await page.reload()
    expect(await main()).toContain('2 attempts')
    expect(await page.getByRole('row', { name: /RETRY 1/ }).textContent()).toContain('200')
    await open('/console/webhooks/deliveries?status=DELIVERED&eventType=webhook.test')
    await open('/console/webhooks/replays')
  })

  it('revokes the key', async () => {
    await open('/console/webhooks/keys')
    await page.getByRole('button', { name: `Revoke ${keyId}` }).click()
    await page.waitForURL(`${t.baseUrl}/console/webhooks/keys`)
    expect(await page.getByRole('row', { name: new RegExp(keyId) }).textContent()).toContain('REVOKED')
    expect(await page.getByRole('button', { name: /^Revoke/ }).count()).toBe(0)
  })

  it('has no serious or critical accessibility problem on any webhook page, at desktop and phone sizes', async () => {
    const problems: string[] = []
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      problems.push(...(await axeProblemsOn(page, t.baseUrl, size, visited)))
      // The page that shows a new key's secret answers a form: posted again at each size.
      await page.goto(t.baseUrl + '/console/webhooks/keys')
      await page.getByRole('button', { name: 'Create a signing key' }).click()
      await page.waitForURL(`${t.baseUrl}/console/webhooks/keys`)
      problems.push(...(await axeProblems(page, `${size} new key`)))
    }
    expect(problems).toEqual([])
  }, 120_000)
})
