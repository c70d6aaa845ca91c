// The console's API request log through HTTP, on a server recording calls (REQUEST_LOG=on): the organization's own
// calls, filtered (time, method, status, path prefix, scheme, key id) and keyset-paged; the correlation id search
// going straight to the call; another merchant's call answered as one nobody made (404). And on a server that does
// not record: the page says so plainly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedHeaders } from '../support/reporting.js'

const DEFINITIONS = '/reporting/v3/report-definitions'

function call(t: TestApp, path: string, correlationId: string, key = TESTREST_KEY) {
  return t.call('GET', path, { headers: { ...signedHeaders({ method: 'GET', path, key, date: t.clock.now() }), 'x-correlationid': correlationId } })
}

describe('recording', () => {
  let t: TestApp
  let b: ConsoleBrowser
  beforeAll(async () => {
    t = await startTestApp({ env: { REQUEST_LOG: 'on' }, clock: new FakeClock(new Date('2026-03-01T00:00:00.500Z')) })
    b = new ConsoleBrowser(t)
    await b.signIn()
    for (let i = 0; i < 55; i++) {
      t.clock.advance(1_000)
      expect((await call(t, DEFINITIONS, `page-${i}`)).status).toBe(200)
    }
    t.clock.advance(1_000)
    expect((await call(t, '/reporting/v3/reports?nothing=1', 'bad-query')).status).toBe(400)
    expect((await call(t, DEFINITIONS, 'theirs-1', OTHER_KEY)).status).toBe(200)
  }, 60_000)
  afterAll(() => t.close())

  const ids = (text: string) => [...text.matchAll(/<a href="\/console\/requests\/([^"]+)">/g)].map((m) => m[1]!)

  it("lists the organization's own calls newest first, 50 a page, with a link to older ones", async () => {
    const first = await b.get('/console/requests')
    expect(first.status).toBe(200)
    expect(first.text).not.toContain('does not record')
    const shown = ids(first.text)
    expect(shown).toHaveLength(50)
    expect(shown.slice(0, 2)).toEqual(['bad-query', 'page-54'])
    expect(shown).not.toContain('theirs-1')
    const older = /<a href="([^"]+)" rel="next">Older calls<\/a>/.exec(first.text)![1]!.replaceAll('&amp;', '&')
    const second = await b.get(older)
    expect(ids(second.text)[0]).toBe('page-5')
    expect(ids(second.text)).not.toContain('page-6')
  })

  it('filters by status, path prefix, method, scheme, key id and time', async () => {
    expect(ids((await b.get('/console/requests?status=4xx')).text)).toEqual(['bad-query'])
    expect(ids((await b.get('/console/requests?path=%2Freporting%2Fv3%2Freports')).text)).toEqual(['bad-query'])
    expect(ids((await b.get('/console/requests?method=POST')).text)).toEqual([])
    expect(ids((await b.get('/console/requests?scheme=oauth')).text)).toEqual([])
    expect(ids((await b.get(`/console/requests?scheme=http_signature&keyId=${TESTREST_KEY.id}&status=4xx`)).text)).toEqual(['bad-query'])
    expect(ids((await b.get(`/console/requests?keyId=${OTHER_KEY.id}`)).text)).toEqual([])
    // A datetime-local value (no zone) is UTC, as the labels say: page-i arrived at 00:00:(i+1).5.
    expect(ids((await b.get('/console/requests?from=2026-03-01T00:00:56')).text)).toEqual(['bad-query'])
    expect(ids((await b.get('/console/requests?from=2026-03-01T00:00:03&to=2026-03-01T00:00:05')).text)).toEqual(['page-3', 'page-2'])
    const refused = await b.get('/console/requests?scheme=magic')
    expect(refused.status).toBe(400)
    expect(refused.text).toMatch(/role="alert" id="filter-error">Cannot filter by that: scheme must be one of/)
  })

  it('goes straight to a call from its correlation id; another merchant’s is as unknown (404)', async () => {
    const found = await b.get('/console/requests/find?correlationId=page-3')
    expect(found.status).toBe(303)
    expect(found.headers.location).toBe('/console/requests/page-3')
    const detail = await b.get('/console/requests/page-3')
    expect(detail.status).toBe(200)
    expect(detail.text).toContain(`<dd>${DEFINITIONS}</dd>`)
    expect(detail.text).toContain(`<dd>${TESTREST_KEY.id}</dd>`)
    for (const id of ['theirs-1', 'nobody-made-this']) {
      const res = await b.get(`/console/requests/${id}`)
      expect(res.status, id).toBe(404)
      expect(res.text).toContain('not yours to see')
    }
    expect((await b.get('/console/requests/find?correlationId=a%20b')).status).toBe(400)
  })
})

describe('not recording', () => {
  it('says plainly that this server does not record API calls', async () => {
    const t = await startTestApp()
    try {
      const b = new ConsoleBrowser(t)
      await b.signIn()
      expect((await call(t, DEFINITIONS, 'unrecorded')).status).toBe(200)
      const res = await b.get('/console/requests')
      expect(res.status).toBe(200)
      expect(res.text).toContain('This server does not record API calls')
      expect(res.text).toContain('REQUEST_LOG=on')
      expect(ids(res.text)).toEqual([])
    } finally {
      await t.close()
    }
  })
  const ids = (text: string) => [...text.matchAll(/<a href="\/console\/requests\/([^"]+)">/g)].map((m) => m[1]!)
})
