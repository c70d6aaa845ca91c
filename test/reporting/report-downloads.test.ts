// GET /report-downloads as HTTP: the stored gzip bytes to clients that accept gzip and the file decompressed to the
// rest, each with its own ETag; byte ranges on both (a broken download resumes with If-Range), 304 on
// If-None-Match, 416 past the end; reportDate in both spellings; reportTime choosing among several reports of one
// name and day, and the search result's link leading to its file.
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { createReport, getRaw, settle } from '../support/reports.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
  const rows: Transaction[] = Array.from({ length: 400 }, (_, i) => ({
    organizationId: 'testrest',
    requestId: `91000000000000000${String(i).padStart(5, '0')}`,
    type: 'sale',
    requestTime: new Date(Date.UTC(2020, 2, 1) + i * 200_000).toISOString(),
    currency: 'USD',
    amount: `${i}.50`,
    fields: { BillTo: { Email: `buyer${i}@example.com`, City: 'Lyon' } },
  }))
  await insertTransactions(t.db.kysely, t.db.dialect, rows)
  const base = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID', 'Request.TransactionDate', 'BillTo.Email', 'BillTo.City'], timezone: 'GMT' }
  for (const body of [
    { ...base, reportName: 'dl', reportStartTime: '2020-03-01T00:00:00Z', reportEndTime: '2020-03-02T00:00:00Z' },
    { ...base, reportName: 'twice', reportStartTime: '2020-03-01T00:00:00Z', reportEndTime: '2020-03-01T12:00:00Z' },
    { ...base, reportName: 'twice', reportStartTime: '2020-03-01T12:00:00Z', reportEndTime: '2020-03-02T00:00:00Z' },
  ]) {
    expect((await createReport(t, body)).status).toBe(201)
  }
  await settle(t)
})
afterAll(() => t.close())

const URL_DL = '/reporting/v3/report-downloads?reportName=dl&reportDate=2020-03-01'

describe('downloads', () => {
  let plain: Buffer
  let gzipped: Buffer
  let etag: string
  let gzipEtag: string

  it('sends the file decompressed to a client that does not accept gzip, with its ETag and length', async () => {
    const res = await getRaw(t, URL_DL)
    expect(res.status).toBe(200)
    expect(res.headers['content-encoding']).toBeUndefined()
    expect(res.headers['accept-ranges']).toBe('bytes')
    expect(res.headers['vary']).toBe('Accept-Encoding')
    expect(res.headers['etag']).toMatch(/^"[0-9a-f]{64}"$/)
    expect(Number(res.headers['content-length'])).toBe(res.body.length)
    plain = res.body
    etag = res.headers['etag'] as string
    expect(plain.toString().split('\r\n')).toHaveLength(402) // header, 400 rows, the final empty piece
    // The same whatever Accept says.
    expect((await getRaw(t, URL_DL, { accept: 'application/xml' })).body.equals(plain)).toBe(true)
    expect((await getRaw(t, URL_DL, { 'accept-encoding': 'gzip;q=0, identity' })).headers['content-encoding']).toBeUndefined()
  })

  it('sends the stored gzip bytes to a client that accepts gzip, under another ETag', async () => {
    const res = await getRaw(t, URL_DL, { 'accept-encoding': 'gzip, deflate, br' })
    expect(res.status).toBe(200)
    expect(res.headers['content-encoding']).toBe('gzip')
    gzipped = res.body
    gzipEtag = res.headers['etag'] as string
    expect(gzipEtag).toBe(`${etag.slice(0, -1)}-gzip"`)
    expect(gunzipSync(gzipped).equals(plain)).toBe(true)
    expect(gzipped.length).toBeLessThan(plain.length)
  })

  it('resumes a broken gzip download with Range and If-Range', async () => {
    const first = await getRaw(t, URL_DL, { 'accept-encoding': 'gzip', range: 'bytes=0-99' })
    expect(first.status).toBe(206)
    expect(first.headers['content-range']).toBe(`bytes 0-99/${gzipped.length}`)
    expect(first.body.equals(gzipped.subarray(0, 100))).toBe(true)
    const rest = await getRaw(t, URL_DL, { 'accept-encoding': 'gzip', range: 'bytes=100-', 'if-range': gzipEtag })
    expect(rest.status).toBe(206)
    expect(Buffer.concat([first.body, rest.body]).equals(gzipped)).toBe(true)
  })

  it('serves ranges of the decompressed file too, and a suffix range', async () => {
    const middle = await getRaw(t, URL_DL, { range: 'bytes=1000-1999' })
    expect(middle.status).toBe(206)
    expect(middle.headers['content-range']).toBe(`bytes 1000-1999/${plain.length}`)
    expect(middle.body.equals(plain.subarray(1000, 2000))).toBe(true)
    const tail = await getRaw(t, URL_DL, { range: 'bytes=-7' })
    expect(tail.body.equals(plain.subarray(plain.length - 7))).toBe(true)
  })

  it('sends the whole file when If-Range names another version, 304 on If-None-Match, 416 past the end', async () => {
    const stale = await getRaw(t, URL_DL, { range: 'bytes=0-9', 'if-range': '"0000"' })
    expect(stale.status).toBe(200)
    expect(stale.body.equals(plain)).toBe(true)
    const same = await getRaw(t, URL_DL, { 'if-none-match': etag })
    expect(same.status).toBe(304)
    expect(same.body.length).toBe(0)
    const past = await getRaw(t, URL_DL, { range: `bytes=${plain.length}-` })
    expect(past.status).toBe(416)
    expect(past.headers['content-range']).toBe(`bytes */${plain.length}`)
  })

  it('takes reportDate as YYYY-MM-DD and YYYYMMDD', async () => {
    expect((await getRaw(t, '/reporting/v3/report-downloads?reportName=dl&reportDate=20200301')).body.equals(plain)).toBe(true)
    expect((await getRaw(t, '/reporting/v3/report-downloads?reportName=dl&reportDate=2020-03-02')).status).toBe(404)
  })
})

describe('several reports of one name on one day', () => {
  const twice = (query: string) => getRaw(t, `/reporting/v3/report-downloads?reportName=twice&reportDate=2020-03-01${query}`)
  const firstRow = (body: Buffer) => body.toString().split('\r\n')[1]!.split(',')[1]

  it('asks for reportTime, naming the choices', async () => {
    const res = await twice('')
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body.toString())).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'reportTime', reason: expect.stringContaining('12:00:00+00:00, 00:00:00+00:00') }] })
  })

  it('chooses by the end of the window, with an offset (+ encoded or sent raw) or Z, or in local time', async () => {
    for (const time of ['12%3A00%3A00%2B00%3A00', '12:00:00+00:00', '12:00', '12:00:00Z', '07:00:00-05:00']) expect(firstRow((await twice(`&reportTime=${time}`)).body), time).toBe('2020-03-01T00:00:00.000Z')
    expect(firstRow((await twice('&reportTime=00:00:00Z')).body)).toBe('2020-03-01T12:00:00.000Z')
    expect((await twice('&reportTime=06:00:00Z')).status).toBe(404)
  })

  it("follows the search result's download link to its own file", async () => {
    const search = await signedCall(t, { method: 'GET', path: '/reporting/v3/reports?startTime=2020-03-01T00:00:00Z&endTime=2020-03-02T00:00:00Z&timeQueryType=reportTimeFrame&reportName=twice', key: TESTREST_KEY })
    const [morning, evening] = search.json.reportSearchResults as { _link: { reportDownload: { href: string } } }[]
    expect(morning!._link.reportDownload.href).toBe('/reporting/v3/report-downloads?reportDate=2020-03-01&reportName=twice&reportTime=12%3A00%3A00%2B00%3A00')
    expect(firstRow((await getRaw(t, morning!._link.reportDownload.href)).body)).toBe('2020-03-01T00:00:00.000Z')
    expect(firstRow((await getRaw(t, evening!._link.reportDownload.href)).body)).toBe('2020-03-01T12:00:00.000Z')
  })
})
