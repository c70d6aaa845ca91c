// The browser-test harness works: headless Chromium opens the app's Swagger UI (/docs), which fetches the OpenAPI
// document and renders its title.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithBrowser, launchChromium } from './support/browser.js'
import { startTestApp, type TestApp } from './support/harness.js'

describeWithBrowser('Swagger UI in headless Chromium', () => {
  let t: TestApp | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    t = await startTestApp()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('renders the API title from /openapi.json at /docs', async () => {
    const doc = await t!.call('GET', '/openapi.json', { headers: { 'x-svc-key': undefined } })
    expect(doc.status).toBe(200)
    const title: string = doc.json.info.title
    expect(title).toBeTruthy()

    const page = await browser!.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    const res = await page.goto(`${t!.baseUrl}/docs`)
    expect(res?.status()).toBe(200)
    // Swagger UI renders the document's title as the page's one heading, followed by the version.
    const heading = page.getByRole('heading', { level: 1, name: title })
    await heading.waitFor({ timeout: 10_000 })
    expect((await heading.textContent())?.startsWith(title)).toBe(true)
    expect(pageErrors).toEqual([])
  })
})
