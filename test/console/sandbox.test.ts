// The console's sandbox page through HTTP: the organization's reporting clock shown, moved forward by a chosen
// duration (the API's GET /sandbox/v1/clock then reads the same time, and reports come due as the API's move makes
// them), refused with one line naming the limit, put back on real time; another organization's clock untouched; an
// event fired with the same sample data as the API's trigger; and in production the page does not exist (404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'
import { settle } from '../support/reports.js'

const alertOf = (text: string) => /<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(text)?.[1]

describe('in sandbox mode', () => {
  let t: TestApp
  let b: ConsoleBrowser
  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) })
    b = new ConsoleBrowser(t)
    await b.signIn()
  })
  afterAll(() => t.close())

  const apiClock = async (key = TESTREST_KEY) => (await signedCall(t, { method: 'GET', path: '/sandbox/v1/clock', key })).json as { now: string; offsetSeconds: number }

  it('is linked from the home page', async () => {
    expect((await b.get('/console')).text).toContain('<a href="/console/sandbox">Sandbox</a>')
  })

  it('moves the clock forward by the chosen duration, as the API then reads it, and back to real time', async () => {
    const sub = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName: 'sandbox_daily', reportFrequency: 'DAILY', timezone: 'GMT', startTime: '0300' }
    expect((await signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(sub), key: TESTREST_KEY })).status).toBe(200)
    const before = await b.get('/console/sandbox')
    expect(before.status).toBe(200)
    expect(before.text).toContain('<dd id="clock-now">2026-02-01T12:00:00.000Z</dd>')
    expect(before.text).toContain('on real time (0 s)')
    expect(before.text).not.toContain('Back to real time')

    const moved = await b.submit('/console/sandbox', '/console/sandbox/clock', { amount: '2', unit: 'days' })
    expect(moved.status).toBe(303)
    // Two daily windows came due (02-02 and 02-03 at 03:00), as the API's move would have queued them.
    expect(moved.headers.location).toBe('/console/sandbox?queued=2')
    expect(await apiClock()).toMatchObject({ now: '2026-02-03T12:00:00.000Z', offsetSeconds: 172_800 })
    expect((await apiClock(OTHER_KEY)).offsetSeconds).toBe(0)
    const after = await b.get(String(moved.headers.location))
    expect(after.text).toContain('<dd id="clock-now">2026-02-03T12:00:00.000Z</dd>')
    expect(after.text).toContain('2 d ahead of real time (172800 s)')
    expect(after.text).toContain('2 reports came due')

    const back = await b.submit('/console/sandbox', '/console/sandbox/clock/real-time', {})
    expect(back.status).toBe(303)
    expect(back.headers.location).toBe('/console/sandbox?realTime=1')
    expect(await apiClock()).toMatchObject({ now: '2026-02-01T12:00:00.000Z', offsetSeconds: 0 })
    expect((await b.get('/console/sandbox?realTime=1')).text).toContain('The clock is back on real time.')
  })

  it.each([
    [{ amount: '0', unit: 'days' }, 'amount: must be a whole number of minutes, hours or days, from 1 up to 366 days.'],
    [{ amount: '367', unit: 'days' }, 'amount: must be a whole number of minutes, hours or days, from 1 up to 366 days.'],
    [{ amount: '1.5', unit: 'hours' }, 'amount: must be a whole number of minutes, hours or days, from 1 up to 366 days.'],
    [{ amount: '1', unit: 'weeks' }, 'unit: must be minutes, hours or days.'],
  ])('refuses a move of %j with one line naming the limit, and moves nothing', async (form, message) => {
    const res = await b.submit('/console/sandbox', '/console/sandbox/clock', form)
    expect(res.status).toBe(400)
    expect(alertOf(res.text)).toBe(message)
    expect((await apiClock()).offsetSeconds).toBe(0)
  })

  it('fires an event with the same sample data as the API’s trigger', async () => {
    const res = await b.submit('/console/sandbox', '/console/sandbox/events', { eventType: 'invoicing.customer.invoice.paid' })
    expect(res.status).toBe(303)
    const id = /event=([0-9a-f-]{36})&notifications=0$/.exec(String(res.headers.location))?.[1]
    expect(id).toBeDefined()
    const stored = await t.db.kysely.selectFrom('webhook_events').selectAll().where('id', '=', id!).executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ organization_id: 'testrest', event_type: 'invoicing.customer.invoice.paid', source: 'sandbox' })
    const api = await signedCall(t, { method: 'POST', path: '/sandbox/v1/events', body: JSON.stringify({ eventType: 'invoicing.customer.invoice.paid' }), key: TESTREST_KEY })
    expect(api.status).toBe(201)
    const payload = JSON.parse(stored.payload) as { data: Record<string, unknown> }
    expect(Object.keys(payload).sort()).toEqual(Object.keys(api.json.payload).sort())
    expect(Object.keys(payload.data).sort()).toEqual(Object.keys(api.json.payload.data).sort())
    expect(payload.data).toMatchObject({ invoiceBalance: '0.00', organizationID: 'testrest' })
    expect((await b.get(String(res.headers.location))).text).toContain(`Event ${id} published; 0 webhook subscriptions hear it.`)
    const unknown = await b.submit('/console/sandbox', '/console/sandbox/events', { eventType: 'no.such.event' })
    expect(unknown.status).toBe(400)
    expect(alertOf(unknown.text)).toMatch(/^eventType: unknown event type/)
  })
})

describe('the reset of an organization’s sandbox data', () => {
  let t: TestApp
  let b: ConsoleBrowser
  let seeded: Record<string, number>
  let seededOther: Record<string, number>
  beforeAll(async () => {
    t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) })
    seeded = await rows('testrest')
    seededOther = await rows('othermerchant')
    b = new ConsoleBrowser(t)
    await b.signIn()
  })
  afterAll(() => t.close())

  /** How many rows of each reporting table are the organization's. */
  async function rows(organizationId: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {}
    for (const table of ['transactions', 'report_subscriptions', 'report_schedules', 'report_instances', 'report_events', 'report_clocks'] as const) {
      const { n } = await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<string | number>().as('n')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow()
      out[table] = Number(n)
    }
    return out
  }

  /** A subscription, a completed one-time report with its file, and the clock moved a day: as a merchant would. */
  async function use(key: typeof TESTREST_KEY): Promise<string> {
    const call = (method: string, path: string, body: unknown) => signedCall(t, { method, path, body: JSON.stringify(body), key })
    expect((await call('PUT', '/reporting/v3/report-subscriptions', { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName: 'reset_daily', reportFrequency: 'DAILY', timezone: 'GMT', startTime: '0300' })).status).toBe(200)
    const made = await call('POST', '/reporting/v3/reports', { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], timezone: 'GMT', reportName: 'reset_once', reportStartTime: '2026-01-30T00:00:00Z', reportEndTime: '2026-01-31T00:00:00Z' })
    expect(made.status).toBe(201)
    expect((await call('POST', '/sandbox/v1/clock', { to: '2026-02-02T12:00:00Z' })).status).toBe(200)
    await settle(t, 4)
    return String(made.headers.location).split('/').pop()!
  }

  it('asks for the organization id on a second form, then removes the organization’s reporting data and no one else’s', async () => {
    const mine = await use(TESTREST_KEY)
    const theirs = await use(OTHER_KEY)
    const download = (id: string, key: typeof TESTREST_KEY) => signedCall(t, { method: 'GET', path: `/reporting/v3/reports/${id}`, key })
    expect((await download(mine, TESTREST_KEY)).json.reportStatus).toBe('COMPLETED')
    const used = await rows('testrest')
    const usedOther = await rows('othermerchant')
    expect(used).not.toEqual(seeded)
    expect(usedOther).not.toEqual(seededOther)

    const page = await b.get('/console/sandbox')
    expect(page.text).toContain('<form method="get" action="/console/sandbox/reset">')
    const confirm = await b.get('/console/sandbox/reset')
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('Type the organization id, testrest, to confirm')
    for (const typed of ['', 'othermerchant', 'TESTREST']) {
      const refused = await b.submit('/console/sandbox/reset', '/console/sandbox/reset', { confirm: typed })
      expect(refused.status).toBe(400)
      expect(alertOf(refused.text)).toBe('Type the organization id exactly, testrest, to confirm; nothing was reset.')
    }
    expect(await rows('testrest')).toEqual(used)

    const done = await b.submit('/console/sandbox/reset', '/console/sandbox/reset', { confirm: 'testrest' })
    expect(done.status).toBe(303)
    expect(done.headers.location).toBe(`/console/sandbox?resetReports=${used.report_instances}&resetSubscriptions=1`)
    expect((await b.get(String(done.headers.location))).text).toContain('Your sandbox data is back to the seeded state')
    expect(await rows('testrest')).toEqual(seeded)
    expect(await rows('othermerchant')).toEqual(usedOther)
    expect((await download(mine, TESTREST_KEY)).status).toBe(404)
    expect((await download(theirs, OTHER_KEY)).json.reportStatus).toBe('COMPLETED')
    expect((await signedCall(t, { method: 'GET', path: '/sandbox/v1/clock', key: TESTREST_KEY })).json.offsetSeconds).toBe(0)
    expect((await signedCall(t, { method: 'GET', path: '/sandbox/v1/clock', key: OTHER_KEY })).json.offsetSeconds).toBeGreaterThan(80_000)
    // The file went with its row: the other merchant's is still there.
    const file = (id: string) => t.db.kysely.selectFrom('report_instances').select('blob_key').where('id', '=', id).executeTakeFirst()
    expect(await file(mine)).toBeUndefined()
    expect((await file(theirs))?.blob_key).toBeTruthy()
  })
})

describe('in production mode', () => {
  let p: TestApp
  beforeAll(async () => {
    p = await startTestApp({ env: { MODE: 'production', SECRETS_KEY: 'console-sandbox-test-secrets-key-0123456789', LOG_LEVEL: 'warn' } })
  })
  afterAll(() => p.close())

  it('has no sandbox page: its routes do not exist (404 to a signed-in user) and the home page does not link it', async () => {
    await p.app.services.organizations.create({ id: 'prodshop', type: 'merchant', name: 'Prod Shop' })
    const { password } = await p.app.services.merchantUsers.create({ organizationId: 'prodshop', username: 'prodshop-user' })
    const b = new ConsoleBrowser(p)
    expect((await b.signIn('prodshop-user', password)).status).toBe(303)
    expect((await b.get('/console')).text).not.toContain('/console/sandbox')
    expect((await b.get('/console/sandbox')).status).toBe(404)
    expect((await b.submit('/console', '/console/sandbox/clock', { amount: '1', unit: 'days' })).status).toBe(404)
    expect(p.routes.some((r) => r.url.startsWith('/console/sandbox'))).toBe(false)
    expect(p.routes.some((r) => r.url === '/console/on-demand')).toBe(true)
  })
})
