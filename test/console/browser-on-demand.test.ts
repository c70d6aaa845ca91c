// The console's on-demand and sandbox pages in headless Chromium, as a merchant uses them, on the sandbox's generated
// data: sign in as testrest; page through purchases and refunds and download a page's CSV, compared with the API's
// text/csv bytes; a window too long is refused on the form; the other on-demand reports, and a quarter's conversions
// paged by their Next page link; move the sandbox clock forward and see the API's GET /sandbox/v1/clock report it,
// fire a sample event, go back to real time; and axe-core on every page at desktop and phone sizes, finding no
// serious or critical problem.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithBrowser } from '../support/browser.js'
import { axeProblemsOn, consolePage, signInThroughForm, SIZES } from '../support/console-chromium.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day } from '../support/on-demand.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { getRaw } from '../support/reports.js'

describeWithBrowser('the console’s on-demand and sandbox pages in headless Chromium', () => {
  let t: TestApp
  let browser: Browser
  let page: Page
  const visited = new Set<string>()

  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) })
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
  const here = () => new URL(page.url())
  const clock = async () => (await signedCall(t, { method: 'GET', path: '/sandbox/v1/clock', key: TESTREST_KEY })).json as { now: string; offsetSeconds: number }

  it('signs testrest in', async () => {
    await signInThroughForm(page, t.baseUrl)
    await open('/console')
  })

  it('pages through purchases and refunds and downloads a page as the API’s CSV bytes', async () => {
    await open('/console')
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'On-demand' }).click()
    await page.waitForURL(`${t.baseUrl}/console/on-demand`)
    expect(await page.locator('table tbody tr').count()).toBe(50)
    const firstIds = await page.locator('table tbody tr td:first-child').allTextContents()
    await page.getByRole('link', { name: 'Next 50' }).click()
    await page.waitForURL(/offset=50/)
    visited.add(here().pathname + here().search)
    const secondIds = await page.locator('table tbody tr td:first-child').allTextContents()
    expect(secondIds).toHaveLength(50)
    expect(secondIds.some((id) => firstIds.includes(id))).toBe(false)
    const href = await page.getByRole('link', { name: /^Download these 50 requests as CSV/ }).getAttribute('href')
    const file = await page.context().request.get(t.baseUrl + href!, { headers: { 'accept-encoding': 'identity' } })
    expect(file.status()).toBe(200)
    const query = new URLSearchParams({ startTime: day(t, -6).replace('.000Z', 'Z'), endTime: day(t, 1).replace('.000Z', 'Z'), paymentSubtype: 'ALL', viewBy: 'requestDate', limit: '50', offset: '50' })
    const api = await getRaw(t, `/reporting/v3/purchase-refund-details?${query}`, { accept: 'text/csv', 'accept-encoding': 'identity' })
    expect(api.status).toBe(200)
    expect(Buffer.from(await file.body()).equals(api.body)).toBe(true)
    expect(api.body.toString('utf8')).toContain(secondIds[0]!)
  })

  it('refuses a window too long on the form, with one line naming the limit', async () => {
    await open('/console/on-demand')
    await page.getByLabel(/^Start/).fill('2025-09-01T00:00:00Z')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(/startTime=2025-09-01/)
    expect(await page.getByRole('alert').textContent()).toBe('endTime: the window may span at most 92 days.')
    visited.add(here().pathname + here().search)
  })

  it('shows net funding, batch summaries, conversions and notifications of change', async () => {
    for (const [name, path] of [
      ['Net funding', '/console/on-demand/net-funding'],
      ['Batch summaries', '/console/on-demand/batch-summaries'],
      ['Conversions', '/console/on-demand/conversions'],
      ['Notifications of change', '/console/on-demand/notifications-of-change'],
    ] as const) {
      await page.getByRole('navigation', { name: 'On-demand reports' }).getByRole('link', { name, exact: true }).click()
      await page.waitForURL(`${t.baseUrl}${path}`)
      visited.add(path)
      expect(await page.locator('table').count(), path).toBeGreaterThan(0)
    }
  })

  it('pages through a quarter’s conversions by the Next page link, and back to the first', async () => {
    const path = `/console/on-demand/conversions?startTime=${day(t, -89).replace('.000Z', 'Z')}&endTime=${day(t, 1).replace('.000Z', 'Z')}`
    await open(path)
    expect(await page.locator('table tbody tr').count()).toBe(50)
    expect(await page.locator('table caption').textContent()).toMatch(/^50 conversions, .+ to .+, oldest first$/)
    const firstIds = await page.locator('table tbody tr td:nth-child(2)').allTextContents()
    await page.getByRole('navigation', { name: 'Pages of conversions' }).getByRole('link', { name: 'Next page' }).click()
    await page.waitForURL(/cursor=/)
    visited.add(here().pathname + here().search)
    const secondIds = await page.locator('table tbody tr td:nth-child(2)').allTextContents()
    expect(secondIds.length).toBeGreaterThan(0)
    expect(secondIds.some((id) => firstIds.includes(id))).toBe(false)
    await page.getByRole('link', { name: 'First page' }).click()
    await page.waitForURL((url) => !url.searchParams.has('cursor'))
    expect(await page.locator('table tbody tr td:nth-child(2)').allTextContents()).toEqual(firstIds)
    // A cursor the page did not give: the form again, with one line.
    await open(`${path}&cursor=nonsense`)
    expect(await page.getByRole('alert').textContent()).toBe('cursor: is not a cursor this page gave.')
  })

  it('moves the sandbox clock forward, as the API reports it, fires an event, and goes back to real time', async () => {
    expect(await clock()).toMatchObject({ offsetSeconds: 0 })
    await open('/console/sandbox')
    await page.getByLabel('Advance by').fill('3')
    await page.getByLabel('Unit').selectOption('hours')
    await page.getByRole('button', { name: 'Advance the clock' }).click()
    await page.waitForURL(/\/console\/sandbox\?queued=/)
    visited.add(here().pathname + here().search)
    expect(await clock()).toMatchObject({ now: '2026-02-01T15:00:00.000Z', offsetSeconds: 10_800 })
    expect(await page.locator('#clock-now').textContent()).toBe('2026-02-01T15:00:00.000Z')
    await page.getByLabel('Event type').selectOption('reporting.report.completed')
    await page.getByRole('button', { name: 'Trigger the event' }).click()
    await page.waitForURL(/\/console\/sandbox\?event=/)
    expect(await page.getByRole('status').textContent()).toMatch(/^Event [0-9a-f-]{36} published/)
    await page.getByRole('button', { name: 'Back to real time' }).click()
    await page.waitForURL(/realTime=1/)
    expect(await clock()).toMatchObject({ now: '2026-02-01T12:00:00.000Z', offsetSeconds: 0 })
    expect(await page.locator('#clock-now').textContent()).toBe('2026-02-01T12:00:00.000Z')
    // The reset's second form (for axe; test/console/sandbox.test.ts resets).
    await page.getByRole('button', { name: 'Reset…' }).click()
    await page.waitForURL(/\/console\/sandbox\/reset\??$/)
    visited.add('/console/sandbox/reset')
    expect(await page.getByLabel(/^Type the organization id/).count()).toBe(1)
  })

  it('has no serious or critical accessibility problem on any page, at desktop and phone sizes', async () => {
    const problems: string[] = []
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      problems.push(...(await axeProblemsOn(page, t.baseUrl, size, visited)))
    }
    expect(problems).toEqual([])
  }, 180_000)
})
