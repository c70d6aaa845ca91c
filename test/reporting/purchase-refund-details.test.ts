// GET /reporting/v3/purchase-refund-details against the sandbox's generated transactions: the official SDK with its
// own key and in meta-key mode, paging that walks a month without a gap or a repeat (whole and partial hours, both
// views, a card brand) compared with the rows read straight from the database, the paging edges, CSV and XML, every
// parameter's bad values answering 400 naming it, and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day, get, isDetail, storedRows, type Row } from '../support/on-demand.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  // The SDK dates its requests with real time, so the server's clock starts there; the sandbox's 90 days end on it.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

const PATH = '/reporting/v3/purchase-refund-details'
const query = (params: Record<string, string | number>) => `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`

/** What a page walk must return: the details of the window in the view's order, from the stored rows. */
async function expected(org: string, from: string, to: string, view: 'request' | 'submission' = 'request', subtype?: string): Promise<string[]> {
  const time = (r: Row) => (view === 'request' ? r.request_time : r.submission_time!)
  const rows = (await storedRows(t, org)).filter((r) => isDetail(r) && time(r) >= from && time(r) < to && (subtype === undefined || r.payment_subtype === subtype))
  rows.sort((a, b) => (time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : a.request_id < b.request_id ? -1 : 1))
  return rows.map((r) => r.request_id)
}

async function walk(params: Record<string, string | number>, limit: number): Promise<string[]> {
  const ids: string[] = []
  for (let offset = 0; ; offset += limit) {
    const res = await get(t, query({ ...params, offset, limit }))
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ offset, limit, pageResults: expect.any(Number) })
    if (res.json.pageResults === 0) {
      expect(res.json).toEqual({ offset, limit, pageResults: 0 })
      return ids
    }
    expect(res.json.requestDetails).toHaveLength(res.json.pageResults)
    ids.push(...res.json.requestDetails.map((d: { requestId: string }) => d.requestId))
  }
}

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('PurchaseAndRefundDetailsApi as %s', (_name, merchantId, key) => {
  const api = () => new cybersource.PurchaseAndRefundDetailsApi(sdkConfig(t.baseUrl, merchantId, key), new cybersource.ApiClient())

  it('reads a page with every section, in the SDK models', async () => {
    const [from, to] = [day(t, -20), day(t, -10)]
    const res = await sdkCall((cb) => api().getPurchaseAndRefundDetails(from, to, { organizationId: merchantId, paymentSubtype: 'ALL', viewBy: 'requestDate', offset: 3, limit: 40 }, cb))
    expect(res.error).toBeNull()
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ offset: 3, limit: 40, pageResults: 40 })
    expect(res.data.requestDetails.map((d: { requestId: string }) => d.requestId)).toEqual((await expected(merchantId, from, to)).slice(3, 43))
    expect(res.data.requestDetails.every((d: { cybersourceMerchantId: string }) => d.cybersourceMerchantId === merchantId)).toBe(true)
    expect(res.data.settlements[0]).toMatchObject({ transactionType: expect.stringMatching(/^(Purchases|Refunds)$/), amount: expect.stringMatching(/^\d+(\.\d+)?$/), cybersourceBatchId: expect.any(String) })
    expect(res.data.settlements[0].submissionTime).toBeInstanceOf(Date)
    expect(res.data.authorizations.length).toBeGreaterThan(0)
    expect(res.data.authorizations[0]).toMatchObject({ authorizationRequestId: expect.any(String), code: expect.stringMatching(/^\d{6}$/), rcode: '1' })
    // Sales and captures carry a fee; a refund's entry has its funding only (which comes first depends on the day the
    // test runs: the sandbox's data follow the clock).
    const fees = res.data.feeAndFundingDetails as { requestId: string; totalFee?: string; feeCurrency?: string; fundingCurrency?: string }[]
    expect(fees.every((f) => typeof f.requestId === 'string' && (f.totalFee !== undefined || f.fundingCurrency === 'USD'))).toBe(true)
    expect(fees.every((f) => f.fundingCurrency === undefined || f.fundingCurrency === 'USD')).toBe(true)
    const charged = fees.filter((f) => f.totalFee !== undefined)
    expect(charged.length).toBeGreaterThan(0)
    for (const f of charged) expect(f).toMatchObject({ totalFee: expect.stringMatching(/^\d+\.\d{4}$/), feeCurrency: 'USD' })
    expect(res.data.others[0]).toMatchObject({ firstName: expect.any(String), lastName: expect.any(String) })
    expect(res.data.settlementStatuses[0]).toMatchObject({ status: 'Settled' })
  })

  it('answers 404 when no transaction falls in the window', async () => {
    const res = await sdkCall((cb) => api().getPurchaseAndRefundDetails('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z', {}, cb))
    expect(res.status).toBe(404)
    expect(JSON.parse(res.error!.response!.text!)).toMatchObject({ reason: 'NOT_FOUND', details: [{ reason: 'no transactions fall in the window' }] })
  })
})

describe('paging', () => {
  it('walks a month without a gap or a repeat, by request date and by submission date', async () => {
    const [from, to] = [day(t, -40), day(t, -10)]
    const byRequest = await expected('testrest', from, to)
    expect(byRequest.length).toBeGreaterThan(700)
    expect(await walk({ startTime: from, endTime: to }, 300)).toEqual(byRequest)
    const bySubmission = await expected('testrest', from, to, 'submission')
    expect(await walk({ startTime: from, endTime: to, viewBy: 'submissionDate' }, 250)).toEqual(bySubmission)
  })

  it('cuts partial hours at both ends exactly, with offsets zoned and a card brand', async () => {
    // 10:30 in UTC+02:00 is 08:30Z; the end 17:45:30.5Z is inside an hour too.
    const from = day(t, -25).replace('T00:00:00.000Z', 'T10:30:00+02:00')
    const to = day(t, -20).replace('T00:00:00.000Z', 'T17:45:30.500Z')
    const ids = await expected('testrest', new Date(from).toISOString(), to)
    expect(await walk({ startTime: from, endTime: to }, 37)).toEqual(ids)
    expect(await walk({ startTime: from, endTime: to, paymentSubtype: 'VI' }, 41)).toEqual(await expected('testrest', new Date(from).toISOString(), to, 'request', 'VI'))
  })

  it('takes a limit of 2000 (the default), answers an offset past the end with the paging fields only', async () => {
    const [from, to] = [day(t, -89), day(t, 0)]
    const all = await expected('testrest', from, to)
    const first = await get(t, query({ startTime: from, endTime: to }))
    expect(first.json).toMatchObject({ offset: 0, limit: 2000, pageResults: Math.min(2000, all.length) })
    const last = await get(t, query({ startTime: from, endTime: to, offset: all.length - 1, limit: 2000 }))
    expect(last.json.requestDetails.map((d: { requestId: string }) => d.requestId)).toEqual([all.at(-1)])
    for (const offset of [all.length, all.length + 1, 2_147_483_647]) {
      const past = await get(t, query({ startTime: from, endTime: to, offset }))
      expect(past.status).toBe(200)
      expect(past.json).toEqual({ offset, limit: 2000, pageResults: 0 })
    }
  })

  it('answers the same page again from its rendered bytes, and a changed store with a fresh page', async () => {
    const path = query({ startTime: day(t, -5), endTime: day(t, -4), limit: 5 })
    const a = await get(t, path)
    expect((await get(t, path)).text).toBe(a.text)
    // A sale submitted in that window, loaded now, moves the page.
    const at = day(t, -5).replace('T00:00:00.000Z', 'T00:00:00.001Z')
    // Written through the store's own path, which keeps the tallies.
    await t.db.kysely.transaction().execute((trx) =>
      insertTransactions(trx, t.db.dialect, [{ organizationId: 'testrest', requestId: '0000000000000000000001', type: 'sale', requestTime: at, submissionTime: at, currency: 'USD', amount: '1.00', fields: {} }]),
    )
    const b = await get(t, path)
    expect(b.json.requestDetails[0].requestId).toBe('0000000000000000000001')
    expect(b.json.requestDetails.slice(1)).toEqual(a.json.requestDetails.slice(0, 4))
  })
})

describe('formats', () => {
  const path = () => query({ startTime: day(t, -15), endTime: day(t, -14), limit: 7, groupName: 'east coast' })

  it('writes CSV: a header and one record per request', async () => {
    const res = await get(t, path(), { accept: 'text/csv' })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    const lines = res.text.trimEnd().split('\r\n')
    expect(lines).toHaveLength(8)
    expect(lines[0]).toMatch(/^requestId,cybersourceMerchantId,processorMerchantId,groupName,/)
    const json = await get(t, path())
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(json.json.requestDetails.map((d: { requestId: string }) => d.requestId))
    expect(lines[1]).toContain(',east coast,')
  })

  it('writes every CSV column of every record: as many cells as the header, each the JSON answer’s value', async () => {
    const csv = parseCsv((await get(t, path(), { accept: 'text/csv' })).text)
    const [header, ...records] = csv
    expect(header!.length).toBeGreaterThan(20)
    const json = (await get(t, path())).json.requestDetails as Record<string, unknown>[]
    expect(records).toHaveLength(json.length)
    for (const [i, record] of records.entries()) {
      expect(record).toHaveLength(header!.length)
      expect(record[header!.indexOf('requestId')]).toBe(json[i]!['requestId'])
    }
  })

  it('writes XML: a Report of Request elements with a child per section', async () => {
    const res = await get(t, path(), { accept: 'application/xml' })
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(res.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Report Name="Purchase and Refund Details" Version="1.0" MerchantID="testrest" /)
    expect(res.text).toContain('PageResults="7"')
    expect(res.text.match(/<Request RequestID="/g)).toHaveLength(7)
    expect(res.text).toMatch(/<Settlement TransactionType="(Purchases|Refunds)"/)
    expect(res.text.trimEnd().endsWith('</Requests>\n</Report>')).toBe(true)
  })

  it('answers JSON for JSON, HAL, anything else and no Accept at all', async () => {
    expect((await get(t, path(), { accept: 'application/hal+json' })).headers['content-type']).toBe('application/hal+json; charset=utf-8')
    for (const accept of [undefined, '*/*', 'application/json', 'application/pdf', 'text/csv;q=0.1, application/json']) {
      const res = await get(t, path(), { accept })
      expect(res.headers['content-type'], accept).toBe('application/json; charset=utf-8')
      expect(res.json.pageResults).toBe(7)
    }
  })
})

describe('errors', () => {
  const good = () => ({ startTime: day(t, -15), endTime: day(t, -14) })
  const BAD: [string, string[]][] = [
    ['startTime', ['yesterday', '2026-02-30T00:00:00Z', '2026-03-01T00:00:00', '2026-03-01T24:00:00Z', '2026-03-01 00:00:00Z']],
    ['endTime', ['', '2026-13-01T00:00:00Z', '2026-03-01T00:00:00+25:00']],
    ['paymentSubtype', ['XX', 'vi', '']],
    ['viewBy', ['settlementDate', 'REQUESTDATE']],
    ['groupName', ['<script>', 'x'.repeat(129)]],
    ['offset', ['-1', '1.5', 'abc', '2147483648']],
    ['limit', ['0', '2001', '-5', 'all']],
    ['organizationId', ['has space', 'x'.repeat(33)]],
  ]

  it.each(BAD)('answers 400 naming %s for each bad value', async (field, values) => {
    for (const value of values) {
      const res = await get(t, query({ ...good(), [field]: value }))
      expect(res.status, `${field}=${value}`).toBe(400)
      expect(res.json).toMatchObject({ reason: 'INVALID_DATA', message: 'One or more fields contains invalid data' })
      expect(res.json.details.map((d: { field: string }) => d.field), `${field}=${value}`).toEqual([field])
    }
  })

  it('answers 400 naming a missing window end, a reversed or empty window, and one over 92 days', async () => {
    const missing = await get(t, `${PATH}?startTime=${day(t, -2)}`)
    expect(missing.json.details).toEqual([{ field: 'endTime', reason: 'is required' }])
    for (const [startTime, endTime] of [[day(t, -1), day(t, -2)], [day(t, -1), day(t, -1)], [day(t, -93), day(t, 0)]]) {
      const res = await get(t, query({ startTime: startTime!, endTime: endTime! }))
      expect(res.status).toBe(400)
      expect(res.json.details).toEqual([{ field: 'endTime', reason: expect.stringMatching(/must be after startTime|at most 92 days/) }])
    }
    expect((await get(t, query({ startTime: day(t, -92), endTime: day(t, 0) }))).status).toBe(200)
  })
})

describe('tenancy', () => {
  it("answers another tenant's organizationId as an unknown one, and a descendant's with its own rows", async () => {
    const other = await get(t, query({ startTime: day(t, -15), endTime: day(t, -14), organizationId: 'othermerchant' }))
    const unknown = await get(t, query({ startTime: day(t, -15), endTime: day(t, -14), organizationId: 'nosuchmerchant' }))
    expect(other.status).toBe(404)
    expect({ ...other.json, submitTimeUtc: 0 }).toEqual({ ...unknown.json, submitTimeUtc: 0 })
    const mine = await get(t, query({ startTime: day(t, -15), endTime: day(t, -14), organizationId: 'testrest_two' }), { key: ACCT_KEY })
    expect(mine.json.requestDetails.map((d: { requestId: string }) => d.requestId)).toEqual(await expected('testrest_two', day(t, -15), day(t, -14)))
    const theirs = await get(t, query({ startTime: day(t, -15), endTime: day(t, -14) }), { key: OTHER_KEY })
    const ours = new Set(mine.json.requestDetails.map((d: { requestId: string }) => d.requestId))
    expect(theirs.json.requestDetails.every((d: { requestId: string; cybersourceMerchantId: string }) => d.cybersourceMerchantId === 'othermerchant' && !ours.has(d.requestId))).toBe(true)
  })
})

/** RFC 4180 records: quoted cells may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let cell = ''
  let quoted = false
  const endCell = () => {
    record.push(cell)
    cell = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"'
      i++
    } else if (c === '"') {
      quoted = !quoted
    } else if (!quoted && c === ',') {
      endCell()
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      endCell()
      records.push(record)
      record = []
      i++
    } else {
      cell += c
    }
  }
  return records
}
