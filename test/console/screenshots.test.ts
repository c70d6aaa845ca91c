// The console's screenshots in docs/console.md are taken here, in headless Chromium, of the pages a merchant sees
// with a month of transactions stored. Every run takes them and checks that docs/console.md shows each page's image
// and that the file is in the repository; `npm run docs:screenshots` (UPDATE_SCREENSHOTS=1) writes them into
// docs/images/console/. They are not compared pixel by pixel: dates, identifiers and fonts change from run to run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { describeWithBrowser, launchChromium } from '../support/browser.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { signedHeaders, TESTREST_KEY } from '../support/reporting.js'

const DOCS = new URL('../../docs/', import.meta.url)
const UPDATE = process.env['UPDATE_SCREENSHOTS'] === '1'
/** The top of each page, at most 1,400 pixels of it (a report's form lists hundreds of fields). */
const CLIP = { x: 0, y: 0, width: 1280, height: 1400 }

/** Each screenshot: its file under docs/images/console/ and the page it shows. */
const SCREENSHOTS: readonly { file: string; path: string }[] = [
  { file: 'sign-in.png', path: '/console/sign-in' },
  { file: 'home.png', path: '/console' },
  { file: 'overview.png', path: '/console/overview' },
  { file: 'reports.png', path: '/console/reports' },
  { file: 'report-new.png', path: '/console/reports/new?definition=TransactionRequestClass' },
  { file: 'subscriptions.png', path: '/console/subscriptions' },
  { file: 'keys.png', path: '/console/keys' },
  { file: 'requests.png', path: '/console/requests' },
  { file: 'webhooks.png', path: '/console/webhooks/new' },
  { file: 'webhook-deliveries.png', path: '/console/webhooks/deliveries' },
  { file: 'operators.png', path: '/console/operators' },
]

/** A month of sales and refunds in two currencies, settled and funded, for the overview's charts. */
function month(now: number): Transaction[] {
  return Array.from({ length: 240 }, (_, i) => {
    const time = new Date(now - (i % 30) * 86_400_000 - (i % 7) * 3_600_000).toISOString()
    const currency = i % 3 === 0 ? 'EUR' : 'USD'
    const type = i % 9 === 0 ? 'refund' : 'sale'
    const amount = `${10 + (i % 40)}.${String(i % 100).padStart(2, '0')}`
    return {
      organizationId: 'testrest',
      requestId: `95${String(i).padStart(20, '0')}`,
      type,
      requestTime: time,
      submissionTime: time,
      fundingDate: time.slice(0, 10),
      paymentSubtype: ['VI', 'MC'][i % 2]!,
      currency,
      amount,
      settlementCurrency: currency,
      settlementAmount: amount,
      fields: { BillTo: { Email: `buyer${i}@example.com` }, Funding: { Status: 'S' }, Settlement: { Status: 'S' } },
    }
  })
}

describeWithBrowser("the console's screenshots in the docs", () => {
  let t: TestApp
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    const now = Date.parse('2026-02-01T15:00:00Z')
    t = await startTestApp({ clock: new FakeClock(new Date(now)), env: { REQUEST_LOG: 'on' } })
    await insertTransactions(t.db.kysely, t.db.dialect, month(now))
    // testrest an operator, for the operators' page (as `finapi users grant-operator testrest` makes it).
    await t.app.services.merchantUsers.setOperator('testrest', true)
    // A few signed calls, for the request log to show (written on the clock's timer, which advancing runs).
    for (const path of ['/reporting/v3/report-definitions', '/reporting/v3/report-subscriptions', '/reporting/v3/reports?nothing=1']) {
      await t.call('GET', path, { headers: signedHeaders({ method: 'GET', path, key: TESTREST_KEY, date: t.clock.now() }) })
      t.clock.advance(1_000)
    }
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it('shows every screenshot in docs/console.md, each a file in the repository', () => {
    const doc = readFileSync(new URL('console.md', DOCS), 'utf8')
    for (const { file } of SCREENSHOTS) {
      expect(doc, file).toContain(`](images/console/${file})`)
      if (!UPDATE) expect(existsSync(new URL(`images/console/${file}`, DOCS)), file).toBe(true)
    }
  })

  it('takes each page as a merchant sees it (written to docs/images/console/ with UPDATE_SCREENSHOTS=1)', async () => {
    await page.goto(`${t.baseUrl}/console/sign-in`)
    const signIn = await page.screenshot({ fullPage: true, clip: CLIP })
    await page.getByLabel('Username').fill('testrest')
    await page.getByLabel('Password').fill('Testrest-1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${t.baseUrl}/console`)
    for (const { file, path } of SCREENSHOTS) {
      let png = signIn
      if (path !== '/console/sign-in') {
        const res = await page.goto(t.baseUrl + path)
        expect(res?.status(), path).toBe(200)
        expect(new URL(page.url()).pathname, path).toBe(path.split('?')[0])
        png = await page.screenshot({ fullPage: true, clip: CLIP })
      }
      // A PNG of the page, not a blank one: the signature, and more bytes than an empty page compresses to.
      expect(png.subarray(1, 4).toString('latin1'), file).toBe('PNG')
      expect(png.length, file).toBeGreaterThan(8_000)
      if (UPDATE) writeFileSync(new URL(`images/console/${file}`, DOCS), png)
    }
  })
})
