// The console in headless Chromium, as a merchant uses it: sign in as testrest; create a subscription and see it
// through the signed API; create a one-time report, let the server's scheduler and job runner run on the fake clock
// until it completes, download it and compare it with the API's download; and axe-core on every page, at desktop
// and phone sizes, finding no serious or critical problem.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { describeWithBrowser } from '../support/browser.js'
import { axeProblems, axeProblemsOn, consolePage, SIZES } from '../support/console-chromium.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { getRaw, settle } from '../support/reports.js'

describeWithBrowser('the console in headless Chromium', () => {
  let t: TestApp
  let browser: Browser
  let page: Page
  const visited = new Set<string>()

  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
    const rows: Transaction[] = Array.from({ length: 20 }, (_, i) => ({
      organizationId: 'testrest',
      requestId: `93000000000000000${String(i).padStart(5, '0')}`,
      type: 'sale',
      requestTime: new Date(Date.UTC(2020, 2, 1) + i * 600_000).toISOString(),
      currency: 'USD',
      amount: `${i}.25`,
      fields: { BillTo: { Email: `buyer${i}@example.com` } },
    }))
    await insertTransactions(t.db.kysely, t.db.dialect, rows)
    ;({ browser, page } = await consolePage())
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  /** Opens the path and remembers it for the accessibility pass. */
  async function open(path: string) {
    const res = await page.goto(t.baseUrl + path)
    visited.add(path)
    return res
  }

  it('signs testrest in through the sign-in page', async () => {
    await open('/console')
    expect(new URL(page.url()).pathname).toBe('/console/sign-in')
    visited.add('/console/sign-in')
    await page.getByLabel('Username').fill('testrest')
    await page.getByLabel('Password').fill('Testrest-1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${t.baseUrl}/console`)
    expect(await page.textContent('header')).toContain('Acting for testrest')
    const cookies = await page.context().cookies()
    expect(cookies.find((c) => c.name === 'finapi_console')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' })
  })

  it('creates a subscription, listed with its next run, and seen through the signed API', async () => {
    await open('/console/subscriptions/new')
    await page.getByLabel('Report definition').selectOption('TransactionRequestClass')
    await page.getByRole('button', { name: /^Next/ }).click()
    visited.add('/console/subscriptions/new?definition=TransactionRequestClass')
    await page.getByLabel('Name', { exact: true }).fill('browser_subscription')
    await page.getByLabel('Time zone', { exact: true }).selectOption('America/Chicago')
    await page.getByLabel(/^Start time/).fill('0930')
    await page.getByRole('button', { name: 'Create subscription' }).click()
    await page.waitForURL(`${t.baseUrl}/console/subscriptions`)
    const row = page.getByRole('row', { name: /browser_subscription/ })
    // 2026-02-01T00:00Z is 2026-01-31 18:00 in Chicago: the next run is 09:30 there the next day.
    expect(await row.textContent()).toContain('2026-02-01 09:30 (America/Chicago)')
    const api = await signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions/browser_subscription', key: TESTREST_KEY })
    expect(api.status).toBe(200)
    expect(api.json).toMatchObject({ reportName: 'browser_subscription', timezone: 'America/Chicago', reportFrequency: 'DAILY' })
    await open('/console/subscriptions')
    await open('/console/subscriptions/browser_subscription')
  })

  it('creates a one-time report, sees it complete, and downloads the same bytes as the API', async () => {
    await open('/console/reports/new')
    await page.getByLabel('Report definition').selectOption('TransactionRequestClass')
    await page.getByRole('button', { name: /^Next/ }).click()
    visited.add('/console/reports/new?definition=TransactionRequestClass')
    await page.getByLabel('Name', { exact: true }).fill('browser_report')
    await page.getByLabel(/^Start/).fill('2020-03-01T00:00:00Z')
    await page.getByLabel(/^End/).fill('2020-03-02T00:00:00Z')
    await page.getByRole('button', { name: 'Create the report' }).click()
    await page.waitForURL(/\/console\/reports\/[0-9a-f-]{36}$/)
    const detail = new URL(page.url()).pathname
    await settle(t)
    await open(detail)
    expect(await page.textContent('main')).toContain('COMPLETED')
    const href = await page.getByRole('link', { name: /^Download/ }).getAttribute('href')
    const file = await page.context().request.get(t.baseUrl + href!, { headers: { 'accept-encoding': 'identity' } })
    expect(file.status()).toBe(200)
    const api = await getRaw(t, '/reporting/v3/report-downloads?reportName=browser_report&reportDate=2020-03-01')
    expect(api.status).toBe(200)
    expect(Buffer.from(await file.body()).equals(api.body)).toBe(true)
    expect(api.body.toString('utf8')).toContain('buyer19@example.com')
    await open('/console/reports?from=2020-02-29&to=2020-03-03')
    expect(await page.textContent('main')).toContain('browser_report')
    await open('/console/organization')
    await open('/console/overview')
    expect(await page.locator('svg[role=img]').count()).toBeGreaterThan(0)
  })

  it('has no serious or critical accessibility problem on any page, at desktop and phone sizes', async () => {
    const problems: string[] = []
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      problems.push(...(await axeProblemsOn(page, t.baseUrl, size, visited)))
    }
    // Signed out: the sign-in page.
    await page.context().clearCookies()
    await page.goto(t.baseUrl + '/console/sign-in')
    problems.push(...(await axeProblems(page, `sign-in`)))
    expect(problems).toEqual([])
    // A dozen pages twice with axe, slower on a shared machine: two minutes rather than vitest's default 30 seconds.
  }, 120_000)
})
