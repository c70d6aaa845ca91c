// The docs page (/docs) as an integrator uses it. In sandbox mode "Try it out" works for every family in headless
// Chromium: a banking read with the keys given to Authorize, merchant API calls (reporting, webhook management, keys)
// signed in the browser under a sandbox key, and a client_credentials token got through Authorize then used. The
// signature's date goes in v-c-date, which a browser may set (it may not set Date). Production ships no signer and
// no sandbox secret.
import type { Browser, Locator, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_REPORTING_KEYS } from '../src/applications/reporting-keys/sandbox.js'
import { axeViolations } from './support/axe.js'
import { describeWithBrowser, launchChromium } from './support/browser.js'
import { FakeClock, startTestApp, type TestApp } from './support/harness.js'
import { TESTREST_KEY, signedHeaders } from './support/reporting.js'
import { MERCHANT_CLIENT, PARTNER_CLIENT } from './support/reporting-oauth.js'

const SIGNER = '/docs/static/theme/sandbox-signer.js'
const SANDBOX_SECRETS = [...SANDBOX_REPORTING_KEYS.map((k) => k.secret), MERCHANT_CLIENT.secret, PARTNER_CLIENT.secret]

let t: TestApp
let production: TestApp
beforeAll(async () => {
  // The browser dates its signatures by its own clock, so the server's (fake) clock starts at the real time.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  production = await startTestApp({ env: { MODE: 'production', SECRETS_KEY: 'a-production-secrets-key-of-at-least-32-characters' } })
})
afterAll(async () => {
  await t.close()
  await production.close()
})

const get = (app: TestApp, path: string) => app.call('GET', path, { headers: { 'x-svc-key': undefined } })

describe('v-c-date over HTTP', () => {
  it('a signature dated in v-c-date is admitted, and a signed write is still single-use', async () => {
    const call = (method: string, path: string, body?: string) =>
      t.call(method, path, { headers: signedHeaders({ method, path, body, key: TESTREST_KEY, date: t.clock.now(), dateHeader: 'v-c-date' }), body })
    const read = await call('GET', '/reporting/v3/report-definitions')
    expect(read.status, read.text).toBe(200)
    const body = JSON.stringify({ clientReferenceInformation: { code: 'v-c-date' } })
    const headers = signedHeaders({ method: 'POST', path: '/kms/egress/v2/keys-sym', body, key: TESTREST_KEY, date: t.clock.now(), dateHeader: 'v-c-date' })
    const write = await t.call('POST', '/kms/egress/v2/keys-sym', { headers, body })
    expect(write.status, write.text).toBe(201)
    expect((await t.call('POST', '/kms/egress/v2/keys-sym', { headers, body })).status).toBe(401)
  })
})

describe('what /docs serves', () => {
  /** The page, Swagger UI's initializer, every script the page loads, and the document. */
  async function served(app: TestApp): Promise<Record<string, string>> {
    const page = await get(app, '/docs')
    expect(page.status).toBe(200)
    const texts: Record<string, string> = { '/docs': page.text }
    for (const [, src] of page.text.matchAll(/<script src="([^"]+)"/g)) texts[src!] = (await get(app, src!)).text
    texts['/docs/json'] = (await get(app, '/docs/json')).text
    return texts
  }

  it('sandbox: the signer, with the published sandbox keys, and the interceptor that runs it', async () => {
    const texts = await served(t)
    expect(Object.keys(texts)).toContain(SIGNER)
    expect(texts[SIGNER]).toContain(TESTREST_KEY.secret)
    expect(texts['/docs/static/swagger-initializer.js']).toContain('requestInterceptors')
  })

  it('production: no signer, no interceptor and no sandbox secret', async () => {
    const texts = await served(production)
    expect(Object.keys(texts)).not.toContain(SIGNER)
    expect((await get(production, SIGNER)).status).toBe(404)
    // Swagger UI's initializer is its own (no interceptor of ours), and nothing served holds a sandbox secret.
    expect(texts['/docs/static/swagger-initializer.js']).not.toMatch(/finapiDocs|requestInterceptor/)
    for (const [path, text] of Object.entries(texts)) {
      for (const word of [...SANDBOX_SECRETS, 'finapiDocs', 'sandbox-signer']) expect(text.includes(word), `${word} in ${path}`).toBe(false)
    }
  })
})

describeWithBrowser('"Try it out" in /docs, in headless Chromium', () => {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  interface Docs {
    page: Page
    /** The API calls the page made (not its own assets). */
    calls: Request[]
    errors: string[]
  }

  async function openDocs(): Promise<Docs> {
    const page = await browser!.newPage()
    const docs: Docs = { page, calls: [], errors: [] }
    page.on('pageerror', (error) => docs.errors.push(error.message))
    page.on('request', (request) => {
      if (!new URL(request.url()).pathname.startsWith('/docs')) docs.calls.push(request)
    })
    await page.goto(`${t.baseUrl}/docs`)
    await page.locator('.information-container').waitFor({ timeout: 30_000 })
    return docs
  }

  /** Opens an operation and turns on "Try it out". */
  async function tryOut(page: Page, id: string): Promise<Locator> {
    const operation = page.locator(`#operations-${id}`)
    await operation.locator('.opblock-summary').click()
    await operation.getByRole('button', { name: 'Try it out' }).click()
    return operation
  }

  /** Clicks Execute and answers the status the response panel shows (a previous answer cleared first). */
  async function execute(operation: Locator): Promise<string> {
    const status = operation.locator('.live-responses-table tr.response .response-col_status')
    const clear = operation.getByRole('button', { name: 'Clear' })
    if (await clear.isVisible()) {
      await clear.click()
      await status.waitFor({ state: 'detached' })
    }
    await operation.getByRole('button', { name: 'Execute' }).click()
    await status.waitFor({ timeout: 30_000 })
    return (await status.innerText()).trim().split(/\s/)[0]!
  }

  const headersOf = (docs: Docs, path: string) => docs.calls.filter((r) => new URL(r.url()).pathname === path).map((r) => r.headers())

  /** Authorize: fills the named scheme's section of the dialog and applies it. */
  async function authorize(page: Page, scheme: string | RegExp, fill: (section: Locator) => Promise<void>, apply: string) {
    await page.locator('.auth-wrapper').getByRole('button', { name: /Authorize/ }).click()
    const section = page.locator('.modal-ux .auth-container', { hasText: scheme })
    await fill(section)
    await section.getByRole('button', { name: apply }).click()
    return section
  }

  it('a banking read, with the application key and a token given to Authorize', { timeout: 120_000 }, async () => {
    const docs = await openDocs()
    const { page } = docs
    for (const [name, value] of [['svcKey', t.sandboxKey], ['authorization', 'any sandbox token']] as const) {
      const section = await authorize(page, new RegExp(`^${name}\\s\\(apiKey\\)`), (s) => s.getByRole('textbox').fill(value), 'Apply credentials')
      await section.getByRole('button', { name: 'Close' }).click()
    }
    const operation = await tryOut(page, 'banking-listAccounts')
    await operation.locator('tr[data-param-name="v"] select').selectOption('1')
    expect(await execute(operation)).toBe('200')
    expect(headersOf(docs, '/v2/accounts')[0]).toMatchObject({ 'x-svc-key': t.sandboxKey })
    expect(docs.errors).toEqual([])
  })

  it('a reporting read, signed in the browser under testrest\'s sandbox key', { timeout: 120_000 }, async () => {
    const docs = await openDocs()
    const operation = await tryOut(docs.page, 'Report_Definitions-getResourceV2Info')
    expect(await execute(operation)).toBe('200')
    const [sent] = headersOf(docs, '/reporting/v3/report-definitions')
    expect(sent).toMatchObject({ 'v-c-merchant-id': 'testrest' })
    expect(sent!['signature']).toMatch(new RegExp(`^keyid="${TESTREST_KEY.id}", algorithm="HmacSHA256", headers="host v-c-date request-target v-c-merchant-id"`))
    expect(sent!['authorization']).toBeUndefined()
    // The chooser above the page: testrest's key by default, and accessible.
    await expect(docs.page.getByLabel('merchant').inputValue()).resolves.toBe(TESTREST_KEY.id)
    expect(await axeViolations(docs.page, '.finapi-signer')).toEqual([])
    expect(docs.errors).toEqual([])
  })

  it('webhook management: a read, and a signed write executed twice (each attempt signed anew)', { timeout: 120_000 }, async () => {
    const docs = await openDocs()
    const list = await tryOut(docs.page, 'Webhooks-getWebhookSubscriptionsByOrg')
    expect(await execute(list)).toBe('200')
    const create = await tryOut(docs.page, 'Webhooks-saveSymEgressKey')
    await create.locator('textarea.body-param__text').fill(JSON.stringify({ clientReferenceInformation: { code: 'docs' } }))
    expect(await execute(create)).toBe('201')
    expect(await execute(create)).toBe('201')
    const sent = headersOf(docs, '/kms/egress/v2/keys-sym')
    expect(sent).toHaveLength(2)
    expect(sent[0]!['signature']).toContain('headers="host v-c-date request-target digest v-c-merchant-id"')
    expect(sent[1]!['v-c-date']).not.toBe(sent[0]!['v-c-date'])
    expect(docs.errors).toEqual([])
  })

  it('a client_credentials token from Authorize (its secret sent raw in Basic), then used instead of a signature', { timeout: 120_000 }, async () => {
    const docs = await openDocs()
    const { page } = docs
    const section = await authorize(
      page,
      'Flow: clientCredentials',
      async (s) => {
        await s.getByLabel('client_id:').fill(MERCHANT_CLIENT.clientId)
        await s.getByLabel('client_secret:').fill(MERCHANT_CLIENT.secret)
        await s.locator('label', { hasText: 'reporting' }).click()
      },
      'Apply given OAuth2 credentials',
    )
    await section.getByText('Authorized').waitFor({ timeout: 30_000 })
    const [tokenRequest] = headersOf(docs, '/oauth2/v3/token')
    expect(tokenRequest!['authorization']).toBe(`Basic ${Buffer.from(`${MERCHANT_CLIENT.clientId}:${MERCHANT_CLIENT.secret}`).toString('base64')}`)
    await section.getByRole('button', { name: 'Close' }).click()

    const operation = await tryOut(page, 'Report_Definitions-getResourceV2Info')
    expect(await execute(operation)).toBe('200')
    const [sent] = headersOf(docs, '/reporting/v3/report-definitions')
    expect(sent!['authorization']).toMatch(/^Bearer fat_/)
    expect(sent!['signature']).toBeUndefined()
    expect(docs.errors).toEqual([])
  })
})
