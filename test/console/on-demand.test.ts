// The console's on-demand pages through HTTP, checked against the signed API on the sandbox's generated data: a page
// of purchases and refunds is the API's page (the same requests, in order, paging by the service's offset and
// limit); its CSV download is the API's text/csv answer byte for byte; a window too long or malformed, or a value the
// API refuses, re-renders the form with one line naming the limit (400); net funding, batch summaries, conversions
// and notifications of change show the API's figures, a page of 50 at a time whose next-page links lead through the
// API's whole answer (no entry twice or missing, ties of one instant across a page's end), a cursor the page did not
// give refused on the form (400); and only the organization acted for is ever shown.
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day, get } from '../support/on-demand.js'
import { OTHER_KEY } from '../support/reporting.js'
import { getRaw } from '../support/reports.js'

let t: TestApp
let b: ConsoleBrowser
/** Another merchant's sale inside the default window: never on testrest's pages. */
const THEIRS = '9510000000000000000001'
/** A week whose first hour has 60 of testrest's conversions and notifications of change at one instant, and 5 of othermerchant's. */
const EVENTS = { startTime: '2025-12-13T00:00:00Z', endTime: '2025-12-20T00:00:00Z' }
const EVENTS_AT = '2025-12-13T01:00:00.000Z'
/** testrest's and othermerchant's request ids interleaved, so that a page's end falls between a merchant's ties. */
function eventRow(organizationId: string, n: number): Transaction {
  const fields = {
    OrderFields: { MerchantReferenceNumber: `paging-${organizationId}-${n}` },
    Conversion: { ConversionDate: EVENTS_AT, OriginalDecision: 'REVIEW', NewDecision: 'ACCEPT', Reviewer: 'pager', Queue: 'paging' },
    NotificationOfChange: { Time: EVENTS_AT, Code: 'C01', AccountType: 'C', RoutingNumber: '011000015', AccountNumber: '############1234', ConsumerName: 'Pat Pager' },
  }
  return { organizationId, requestId: `9520000000000000000${String(n).padStart(3, '0')}`, type: 'authorization', requestTime: '2025-12-13T00:30:00.000Z', currency: 'USD', amount: '1.00', fields }
}
const OUR_EVENTS = Array.from({ length: 60 }, (_, i) => eventRow('testrest', 2 * i))
const THEIR_EVENTS = Array.from({ length: 5 }, (_, i) => eventRow('othermerchant', 2 * i + 1))
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) })
  const row: Transaction = { organizationId: 'othermerchant', requestId: THEIRS, type: 'sale', requestTime: '2026-01-31T10:00:00.000Z', submissionTime: '2026-01-31T10:05:00.000Z', currency: 'USD', amount: '1.00', fields: {} }
  await insertTransactions(t.db.kysely, t.db.dialect, [row, ...OUR_EVENTS, ...THEIR_EVENTS])
  b = new ConsoleBrowser(t)
  await b.signIn()
})
afterAll(() => t.close())

const qs = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()
/** The request ids in a page's table, in order. */
const idsOn = (text: string) => [...text.matchAll(/<tr><td>(\d{22})<\/td>/g)].map((m) => m[1]!)
/** The page's one-line refusal. */
const alertOf = (text: string) => /<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(text)?.[1]

/** A table's body rows, each its cells' text. */
const rowsOn = (text: string) =>
  [...text.matchAll(/<tr>((?:<td>[^<]*<\/td>)+)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]!.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')))
const nextOf = (text: string) => /href="([^"]+)" rel="next"/.exec(text)?.[1]?.replaceAll('&amp;', '&')

/** Every page of an event report from `path`, by each page's own next-page link. */
async function allPages(br: ConsoleBrowser, path: string): Promise<string[]> {
  const pages: string[] = []
  for (let next: string | undefined = path; next; next = nextOf(pages[pages.length - 1]!)) {
    const res = await br.get(next)
    expect(res.status, next).toBe(200)
    pages.push(res.text)
    expect(pages.length).toBeLessThan(100)
  }
  return pages
}

async function bytes(path: string) {
  const res = await request(t.baseUrl + path, { headers: { cookie: b.cookieHeader, 'accept-encoding': 'identity' } })
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) }
}

describe('purchases and refunds', () => {
  it('shows the API’s page, pages by its offset and limit, and downloads its CSV byte for byte', async () => {
    const window = { startTime: day(t, -6), endTime: day(t, 1) }
    const first = await b.get('/console/on-demand')
    expect(first.status).toBe(200)
    expect(first.text).toContain(`value="${window.startTime.replace('.000Z', 'Z')}"`)
    const api = await get(t, `/reporting/v3/purchase-refund-details?${qs({ ...window, offset: 0, limit: 50 })}`)
    expect(api.status).toBe(200)
    expect(idsOn(first.text)).toEqual(api.json.requestDetails.map((d: { requestId: string }) => d.requestId))
    expect(idsOn(first.text)).toHaveLength(50)
    // The next page, by the page's own link.
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll('&amp;', '&')
    const second = await b.get(next)
    const api2 = await get(t, `/reporting/v3/purchase-refund-details?${qs({ ...window, offset: 50, limit: 50 })}`)
    expect(idsOn(second.text)).toEqual(api2.json.requestDetails.map((d: { requestId: string }) => d.requestId))
    expect(second.text).toMatch(/rel="prev"/)
    // The CSV of that page: the API's bytes for the same query.
    const csvLink = /href="(\/console\/on-demand\/purchase-refund-details\.csv[^"]+)"/.exec(second.text)![1]!.replaceAll('&amp;', '&')
    const csv = await bytes(csvLink)
    const apiCsv = await getRaw(t, `/reporting/v3/purchase-refund-details?${qs({ ...window, paymentSubtype: 'ALL', viewBy: 'requestDate', limit: 50, offset: 50 })}`, { accept: 'text/csv', 'accept-encoding': 'identity' })
    expect(csv.status).toBe(200)
    expect(apiCsv.status).toBe(200)
    expect(csv.headers['content-type']).toBe(apiCsv.headers['content-type'])
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename=/)
    expect(csv.body.equals(apiCsv.body)).toBe(true)
    expect(csv.body.toString('utf8').split('\r\n').length).toBe(52)
  })

  it('filters by payment subtype and view as the API does, with up to 2000 a page', async () => {
    const params = { startTime: day(t, -3), endTime: day(t, -2), paymentSubtype: 'VI', viewBy: 'submissionDate', limit: 2000, offset: 0 }
    const page = await b.get(`/console/on-demand?${qs(params)}`)
    const api = await get(t, `/reporting/v3/purchase-refund-details?${qs(params)}`)
    expect(idsOn(page.text)).toEqual(api.json.requestDetails.map((d: { requestId: string }) => d.requestId))
    expect(page.text).not.toMatch(/rel="next"/)
  })

  it.each([
    [{ startTime: day(t0(), -100), endTime: day(t0(), 0) }, 'endTime: the window may span at most 92 days.'],
    [{ startTime: '2026-13-01T00:00:00Z', endTime: day(t0(), 0) }, 'startTime: is not a valid date-time: 2026-13-01T00:00:00Z.'],
    [{ startTime: 'yesterday' }, 'startTime: must be an ISO 8601 date-time with a zone, e.g. 2026-03-01T00:00:00.000Z.'],
    [{ endTime: day(t0(), -10) }, 'endTime: must be after startTime.'],
    [{ limit: '0' }, 'limit: must be a whole number from 1 to 2000.'],
    [{ limit: '2001' }, 'limit: must be a whole number from 1 to 2000.'],
    [{ offset: '1.5' }, 'offset: must be a whole number from 0 to 2147483647.'],
    [{ paymentSubtype: 'XX' }, 'paymentSubtype: must be one of ALL, VI, MC, AX, DI, DP.'],
  ])('re-renders the form with one line naming the limit: %j', async (params, message) => {
    for (const path of ['/console/on-demand', '/console/on-demand/purchase-refund-details.csv']) {
      const res = await b.get(`${path}?${qs(params)}`)
      expect(res.status, path).toBe(400)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
      expect(alertOf(res.text)).toBe(message)
      expect(res.text).toContain('<form method="get" action="/console/on-demand">')
    }
  })

  it('says so when the window holds nothing (the API’s 404), and past the end', async () => {
    const empty = await b.get(`/console/on-demand?${qs({ startTime: '2020-01-01T00:00:00Z', endTime: '2020-01-02T00:00:00Z' })}`)
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No purchases or refunds in this window.')
    const past = await b.get(`/console/on-demand?${qs({ startTime: day(t, -1), endTime: day(t, 0), offset: 1_000_000 })}`)
    expect(past.status).toBe(200)
    expect(past.text).toContain('No requests from 1000001 on')
    expect(past.text).toMatch(/rel="prev"/)
  })

  it('shows only the organization acted for: another merchant’s sale is on no page and in no file', async () => {
    const window = { startTime: '2026-01-31T10:00:00Z', endTime: '2026-01-31T11:00:00Z', limit: 2000 }
    const mine = await b.get(`/console/on-demand?${qs({ ...window, organizationId: 'othermerchant' })}`)
    expect(mine.status).toBe(200)
    expect(idsOn(mine.text).length).toBeGreaterThan(0)
    expect(mine.text).not.toContain(THEIRS)
    const csv = await bytes(`/console/on-demand/purchase-refund-details.csv?${qs({ ...window, organizationId: 'othermerchant' })}`)
    expect(csv.body.toString('utf8')).not.toContain(THEIRS)
    // The API, asked for othermerchant's, has it: the console's pages are not missing it by accident.
    const theirs = await get(t, `/reporting/v3/purchase-refund-details?${qs(window)}`, { key: OTHER_KEY })
    expect(theirs.text).toContain(THEIRS)
  })
})

describe('net funding, batch summaries, conversions, notifications of change', () => {
  it('net funding shows the API’s totals by currency as exact decimal text', async () => {
    const window = { startTime: day(t, -30), endTime: day(t, 0) }
    const page = await b.get(`/console/on-demand/net-funding?${qs(window)}`)
    const api = await get(t, `/reporting/v3/net-fundings?${qs(window)}`)
    expect(page.status).toBe(200)
    expect(api.json.netTotal.length).toBeGreaterThan(0)
    for (const { value } of api.json.netTotal as { currency: string; value: string }[]) expect(page.text).toContain(`<strong>${value}</strong>`)
    for (const { currency, value } of api.json.totalPurchases as { currency: string; value: string }[]) expect(page.text).toMatch(new RegExp(`<th scope="row">${currency}</th><td>${value.replace('.', '\\.')}</td>`))
    const long = await b.get(`/console/on-demand/net-funding?${qs({ startTime: day(t, -93), endTime: day(t, 0) })}`)
    expect(long.status).toBe(400)
    expect(alertOf(long.text)).toBe('endTime: the window may span at most 92 days.')
  })

  it('batch summaries show the API’s rows, with its periods and breakdowns and its year-long limit', async () => {
    const params = { startTime: day(t, -14), endTime: day(t, 0), rollUp: 'week', breakdown: 'selected_merchant' }
    const page = await b.get(`/console/on-demand/batch-summaries?${qs(params)}`)
    const api = await get(t, `/reporting/v3/payment-batch-summaries?${qs({ ...params, organizationId: 'testrest' })}`)
    expect(page.status).toBe(200)
    for (const s of api.json.paymentBatchSummaries as { salesAmount: string; creditAmount: string; startTime: string }[]) {
      expect(page.text).toContain(`<td>${s.salesAmount}</td>`)
      expect(page.text).toContain(s.startTime)
    }
    const alone = await b.get(`/console/on-demand/batch-summaries?${qs({ startTime: day(t, -14), endTime: day(t, 0), rollUp: 'day' })}`)
    expect(alone.status).toBe(400)
    expect(alertOf(alone.text)).toBe('breakdown: rollUp and breakdown are given together.')
    const long = await b.get(`/console/on-demand/batch-summaries?${qs({ startTime: day(t, -400), endTime: day(t, 0) })}`)
    expect(alertOf(long.text)).toBe('endTime: the window may span at most 366 days.')
  })

  it('conversions list the API’s, and their CSV is the API’s bytes', async () => {
    const window = { startTime: day(t, -60), endTime: day(t, -30) }
    const pages = await allPages(b, `/console/on-demand/conversions?${qs(window)}`)
    const api = await get(t, `/reporting/v3/conversion-details?${qs(window)}`)
    expect(api.json.conversionDetails.length).toBeGreaterThan(0)
    expect(pages.flatMap((p) => rowsOn(p).map((r) => r[1]))).toEqual(api.json.conversionDetails.map((c: { requestId: string }) => c.requestId))
    const csv = await bytes(`/console/on-demand/conversions.csv?${qs(window)}`)
    const apiCsv = await getRaw(t, `/reporting/v3/conversion-details?${qs(window)}`, { accept: 'text/csv', 'accept-encoding': 'identity' })
    expect(csv.body.equals(apiCsv.body)).toBe(true)
  })

  it('notifications of change show the API’s', async () => {
    const window = { startTime: day(t, -85), endTime: day(t, -1) }
    const pages = await allPages(b, `/console/on-demand/notifications-of-change?${qs(window)}`)
    const api = await get(t, `/reporting/v3/notification-of-changes?${qs(window)}`)
    expect(api.json.notificationOfChanges.length).toBeGreaterThan(0)
    const want = (api.json.notificationOfChanges as { time: string; code: string; merchantReferenceNumber?: string; accountNumber: string }[]).map((n) => [n.time, n.code, n.merchantReferenceNumber ?? '', n.accountNumber])
    expect(pages.flatMap((p) => rowsOn(p).map((r) => [r[0], r[1], r[2], r[5]]))).toEqual(want)
  })
})

describe('conversions and notifications of change a page at a time', () => {
  const reports = [
    // [page, API path, an entry's key in the API's JSON, its table cell]
    ['/console/on-demand/conversions', '/reporting/v3/conversion-details', 'conversionDetails', (e: Record<string, string>) => e['requestId'], (r: string[]) => r[1]],
    ['/console/on-demand/notifications-of-change', '/reporting/v3/notification-of-changes', 'notificationOfChanges', (e: Record<string, string>) => e['merchantReferenceNumber'], (r: string[]) => r[2]],
  ] as const

  it.each(reports)('%s shows 50, and its next-page links lead through the API’s answer, none twice or missing', async (path, apiPath, list, key, cell) => {
    const api = await get(t, `${apiPath}?${qs(EVENTS)}`)
    expect(api.status).toBe(200)
    const want = (api.json[list] as Record<string, string>[]).map(key)
    expect(want.length).toBeGreaterThan(60)
    const pages = await allPages(b, `${path}?${qs(EVENTS)}`)
    expect(pages.length).toBe(Math.ceil(want.length / 50))
    expect(rowsOn(pages[0]!)).toHaveLength(50)
    expect(pages[0]).toMatch(/<caption>50 [a-z ]+, [^<]+ to [^<]+, oldest first<\/caption>/)
    expect(pages[0]).not.toContain('First page')
    expect(pages[1]).toMatch(/<a href="[^"]+">First page<\/a>/)
    const got = pages.flatMap((p) => rowsOn(p).map(cell))
    expect(got).toEqual(want)
    expect(new Set(got).size).toBe(got.length)
    // Each next-page link carries the window, as the form has it.
    expect(nextOf(pages[0]!)).toMatch(new RegExp(`^${path}\\?startTime=2025-12-13T00%3A00%3A00Z&endTime=2025-12-20T00%3A00%3A00Z&cursor=[A-Za-z0-9_-]+$`))
    if (path.endsWith('conversions')) for (const p of pages) expect(p).toContain(`href="/console/on-demand/conversions.csv?${qs(EVENTS).replaceAll('&', '&amp;')}" download`)
    // othermerchant's, in the same instants, on none of testrest's pages.
    for (const p of pages) {
      expect(p).not.toContain('paging-othermerchant-')
      for (const theirs of THEIR_EVENTS) expect(p).not.toContain(theirs.requestId)
    }
  })

  const key = (time: string, requestId: string) => Buffer.from(JSON.stringify([time, requestId])).toString('base64url')
  it.each(
    reports.flatMap(([path]) => [
      [path, 'words', 'not a cursor'],
      [path, 'not base64url', '!!!!'],
      [path, 'too long', 'x'.repeat(2000)],
      [path, 'a key without its request id', Buffer.from('["2025-12-13T01:00:00.000Z"]').toString('base64url')],
      [path, 'a time without milliseconds', key('2025-12-13T01:00:00Z', '9520000000000000000000')],
      [path, 'an empty request id', key('2025-12-13T01:00:00.000Z', '')],
      [path, 'an object', Buffer.from('{"time":"2025-12-13T01:00:00.000Z","requestId":"9520000000000000000000"}').toString('base64url')],
      [path, 'padded', `${key('2025-12-13T01:00:00.000Z', '9520000000000000000000')}=`],
      [path, 'a day that does not exist', key('2025-02-30T01:00:00.000Z', '9520000000000000000000')],
    ]),
  )('%s refuses a cursor it did not give, on the form (400): %s', async (path, _what, cursor) => {
    const res = await b.get(`${path}?${qs({ ...EVENTS, cursor })}`)
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(alertOf(res.text)).toBe('cursor: is not a cursor this page gave.')
    expect(res.text).toContain(`<form method="get" action="${path}">`)
    expect(rowsOn(res.text)).toEqual([])
  })

  it('another merchant’s session sees its own and never testrest’s, even from testrest’s cursor', async () => {
    const { password } = await t.app.services.merchantUsers.create({ organizationId: 'othermerchant', username: 'other-pager' })
    const other = new ConsoleBrowser(t)
    expect((await other.signIn('other-pager', password)).status).toBe(303)
    const ours = await b.get(`/console/on-demand/conversions?${qs(EVENTS)}`)
    const cursor = new URL(nextOf(ours.text)!, t.baseUrl).searchParams.get('cursor')!
    for (const path of ['/console/on-demand/conversions', '/console/on-demand/notifications-of-change']) {
      for (const query of [qs(EVENTS), qs({ ...EVENTS, cursor })]) {
        const res = await other.get(`${path}?${query}`)
        expect(res.status).toBe(200)
        expect(res.text).not.toContain('paging-testrest-')
        expect(res.text).not.toMatch(/9520000000000000000\d\d[02468]</)
      }
      const all = (await allPages(other, `${path}?${qs(EVENTS)}`)).flatMap(rowsOn).filter((r) => r[2]!.startsWith('paging-'))
      expect(all.map((r) => r[2])).toEqual(THEIR_EVENTS.map((e) => e.fields['OrderFields']!['MerchantReferenceNumber']))
    }
  })
})

/** The app's clock for the table of cases (built before the app starts: the fixed date of beforeAll). */
function t0(): TestApp {
  return { clock: new FakeClock(new Date('2026-02-01T12:00:00Z')) } as TestApp
}
