// GET /: a visitor's first stop. JSON for clients, a small page for browsers (in Chromium, with axe), the sandbox's
// published credentials in sandbox mode only.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeViolations } from './support/axe.js'
import { describeWithBrowser, launchChromium } from './support/browser.js'
import { startTestApp, type TestApp } from './support/harness.js'

let sandbox: TestApp
let production: TestApp
beforeAll(async () => {
  sandbox = await startTestApp()
  production = await startTestApp({ env: { MODE: 'production', SECRETS_KEY: 'a-production-secrets-key-of-at-least-32-characters' } })
})
afterAll(async () => {
  await sandbox.close()
  await production.close()
})

const home = (t: TestApp, accept?: string) => t.call('GET', '/', { headers: { 'x-svc-key': undefined, ...(accept ? { accept } : {}) } })

describe('GET /', () => {
  it('answers JSON to a client: the docs, the OpenAPI document, health, and the sandbox credentials', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await home(sandbox, accept)
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.json.links.map((l: { href: string }) => l.href)).toEqual(['/docs', '/openapi.json', '/health/live', '/health/ready'])
      expect(res.json.mode).toBe('sandbox')
      const values = (res.json.sandbox as { value: string }[]).map((s) => s.value)
      expect(values).toContain(sandbox.sandboxKey)
      expect(values).toContain('10055670 / aaa111')
      expect(values).toContain('testrest / Testrest-1')
    }
  })

  it('answers HTML to a browser, and every link it gives answers', async () => {
    const res = await home(sandbox, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['vary']).toMatch(/accept/i)
    expect(res.text).toContain('<h1>finapi')
    expect(res.text).toContain(sandbox.sandboxKey)
    for (const href of [...res.text.matchAll(/href="(\/[^"]*)"/g)].map((m) => m[1]!)) {
      expect((await sandbox.call('GET', href, { headers: { 'x-svc-key': undefined } })).status, href).toBe(200)
    }
  })

  it('shows no credentials in production', async () => {
    const json = await home(production)
    expect(json.json.mode).toBe('production')
    expect(json.json.sandbox).toBeUndefined()
    const html = await home(production, 'text/html')
    expect(html.text).not.toMatch(/credentials|aaa111|Testrest-1/i)
  })
})

describeWithBrowser('GET / in headless Chromium', () => {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('renders the page, with no accessibility violation, on a desktop and a phone', async () => {
    for (const viewport of [{ width: 1280, height: 800 }, { width: 375, height: 667 }]) {
      const page = await browser!.newPage({ viewport })
      const res = await page.goto(`${sandbox.baseUrl}/`)
      expect(res?.status()).toBe(200)
      await page.getByRole('heading', { level: 1 }).waitFor()
      expect(await page.getByRole('link', { name: 'Interactive API documentation' }).count()).toBe(1)
      expect(await axeViolations(page)).toEqual([])
      // Nothing wider than the screen on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
      await page.close()
    }
  })
})
