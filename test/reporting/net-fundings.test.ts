// GET /reporting/v3/net-fundings: every figure checked to the cent against sums made here from the stored rows, on
// the sandbox's USD-settled merchant and on a merchant settled in EUR, GBP and JPY with amounts of every scale;
// the official SDK with its own key and in meta-key mode; an account's view of its merchants, a reseller refused;
// errors naming the parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Transaction } from '../../src/reporting/transactions/catalog.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day, exactSum, get, groupBy, storedRows, type Row } from '../support/on-demand.js'
import { ACCT_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  await t.app.services.organizations.create({ id: 'multi_ccy', type: 'merchant', parentId: 'testrest_acct' })
  await t.db.kysely.transaction().execute((trx) => insertTransactions(trx, t.db.dialect, multiCurrency()))
})
afterAll(() => t.close())

/** 240 funded transactions settled in EUR, GBP or JPY, amounts of 0 to 4 decimals, some pending or failed. */
function multiCurrency(): Transaction[] {
  const currencies = ['EUR', 'GBP', 'JPY'] as const
  const types = ['sale', 'capture', 'refund', 'credit', 'chargeback', 'sale'] as const
  return Array.from({ length: 240 }, (_, i) => {
    const currency = currencies[i % 3]!
    const type = types[i % 6]!
    const amount = currency === 'JPY' ? String(1000 + i * 7) : ['0.1', '12.34', '7', '1234.5678', '0.05'][i % 5]!
    const fundingDate = day(t, -(i % 20) - 1).slice(0, 10)
    const status = i % 17 === 0 ? 'P' : i % 19 === 0 ? 'F' : 'S'
    const fields: Transaction['fields'] = { Funding: { Status: status }, Settlement: { Status: i % 23 === 0 ? 'P' : 'S' } }
    if (type === 'sale' || type === 'capture') fields['Fee'] = { TotalFeeAmount: currency === 'JPY' ? String(10 + (i % 4)) : `0.${String(1000 + i).slice(-4)}`, TotalFeeCurrency: currency }
    const time = `${fundingDate}T0${i % 10}:00:00.000Z`
    return { organizationId: 'multi_ccy', requestId: `mc${String(i).padStart(6, '0')}`, type, requestTime: time, submissionTime: time, fundingDate, paymentSubtype: ['VI', 'MC', 'AX'][i % 3]!, currency, amount, settlementCurrency: currency, settlementAmount: amount, fields }
  })
}

const PATH = '/reporting/v3/net-fundings'
const category = (type: string) => (['sale', 'capture'].includes(type) ? 'PURCHASES' : ['refund', 'credit'].includes(type) ? 'REFUNDS' : type === 'chargeback' ? 'CHARGEBACKS' : undefined)
const done = (status: string | undefined) => status !== 'P' && status !== 'F'

/** The report computed here from the rows: the window's funding dates, the spec's rules, BigInt sums. */
async function expected(organizations: string[], fromDate: string, toDate: string) {
  interface Item {
    type: string
    subtype: string
    currency: string
    amount: string
    funded: boolean
    settled: boolean
  }
  const items: Item[] = []
  for (const r of (await storedRows(t, ...organizations)) as Row[]) {
    const type = category(r.type)
    if (!type || r.funding_date === null || r.funding_date < fromDate || r.funding_date >= toDate) continue
    const f = JSON.parse(r.fields) as Record<string, Record<string, string>>
    const funded = done(f['Funding']?.['Status'])
    const settled = r.settlement_amount !== null && done(f['Settlement']?.['Status'])
    const currency = r.settlement_currency ?? r.currency
    items.push({ type, subtype: r.payment_subtype ?? '', currency, amount: r.settlement_amount ?? r.amount, funded, settled })
    const fee = f['Fee']?.['TotalFeeAmount']
    if (fee !== undefined) items.push({ type: 'FEES', subtype: r.payment_subtype ?? '', currency: f['Fee']?.['TotalFeeCurrency'] ?? currency, amount: fee, funded, settled })
  }
  const summaries = [...groupBy(items, (i) => `${i.type}|${i.subtype}|${i.currency}`).values()].map((g) => ({
    type: g[0]!.type,
    paymentSubType: g[0]!.subtype,
    conveyedCount: g.length,
    conveyedAmount: exactSum(g.map((i) => i.amount)),
    settledCount: g.filter((i) => i.settled).length,
    fundedCount: g.filter((i) => i.funded).length,
    fundedAmount: exactSum(g.filter((i) => i.funded).map((i) => i.amount)),
    currencyCode: g[0]!.currency,
  }))
  const total = (type: string) => [...groupBy(items.filter((i) => i.type === type && i.funded), (i) => i.currency)].map(([currency, g]) => ({ currency, value: exactSum(g.map((i) => i.amount)) }))
  const net = [...groupBy(items.filter((i) => i.funded), (i) => i.currency)].map(([currency, g]) => ({ currency, value: exactSum(g.map((i) => (i.type === 'PURCHASES' ? i.amount : `-${i.amount}`))) }))
  return { summaries, totals: { totalPurchases: total('PURCHASES'), totalRefunds: total('REFUNDS'), totalFees: total('FEES'), totalChargebacks: total('CHARGEBACKS'), netTotal: net } }
}

const byKey = <T extends { type: string; paymentSubType: string; currencyCode: string }>(list: T[]) => [...list].sort((a, b) => `${a.type}|${a.paymentSubType}|${a.currencyCode}`.localeCompare(`${b.type}|${b.paymentSubType}|${b.currencyCode}`))
const byCurrency = (list: { currency: string; value: string }[]) => [...list].sort((a, b) => a.currency.localeCompare(b.currency))

async function check(organizationIds: string[], from: string, to: string, answer: Record<string, unknown> & { netFundingSummaries: never[] }) {
  const want = await expected(organizationIds, from.slice(0, 10), to.slice(0, 10))
  expect(byKey(answer.netFundingSummaries)).toEqual(byKey(want.summaries))
  for (const [name, list] of Object.entries(want.totals)) expect(byCurrency(answer[name] as never), name).toEqual(byCurrency(list))
}

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('NetFundingsApi as %s', (_name, merchantId, key) => {
  it('answers every summary and total to the cent, as sums of the stored rows give them', async () => {
    const [from, to] = [day(t, -35), day(t, -5)]
    const api = new cybersource.NetFundingsApi(sdkConfig(t.baseUrl, merchantId, key), new cybersource.ApiClient())
    const res = await sdkCall((cb) => api.getNetFundingDetails(from, to, { organizationId: merchantId }, cb))
    expect(res.error).toBeNull()
    expect(res.data.startTime).toEqual(new Date(from))
    expect(res.data.netFundingSummaries.length).toBeGreaterThan(10)
    await check([merchantId], from, to, res.data)
  })
})

describe('net fundings', () => {
  it('sums several settlement currencies exactly, amounts of every scale, pending and failed fundings apart', async () => {
    const [from, to] = [day(t, -21), day(t, 0)]
    const res = await get(t, `${PATH}?startTime=${from}&endTime=${to}&organizationId=multi_ccy`, { key: ACCT_KEY })
    expect(res.status).toBe(200)
    expect(res.json.netTotal.map((n: { currency: string }) => n.currency).sort()).toEqual(['EUR', 'GBP', 'JPY'])
    await check(['multi_ccy'], from, to, res.json)
    // A funding date counts when its midnight is in the window: an end at 23:59:59 keeps that day.
    const late = await get(t, `${PATH}?startTime=${from}&endTime=${day(t, -2).replace('T00:00:00.000Z', 'T23:59:59Z')}&organizationId=multi_ccy`, { key: ACCT_KEY })
    await check(['multi_ccy'], from, day(t, -1), late.json)
  })

  it("gives an account its merchants' fundings together, and refuses a reseller (403)", async () => {
    const [from, to] = [day(t, -30), day(t, -10)]
    const res = await get(t, `${PATH}?startTime=${from}&endTime=${to}`, { key: ACCT_KEY })
    expect(res.status).toBe(200)
    await check(['testrest', 'testrest_two', 'multi_ccy'], from, to, res.json)
    const { key, secret } = await t.app.services.reportingKeys.create('testrest_reseller')
    const reseller = await get(t, `${PATH}?startTime=${from}&endTime=${to}`, { key: { id: key.id, secret, org: 'testrest_reseller' } })
    expect(reseller.status).toBe(403)
    expect(reseller.json).toMatchObject({ reason: 'FORBIDDEN', details: [{ field: 'organizationId' }] })
  })

  it("gives the console's daily net totals from one read, each equal to the API's answer for that day alone", async () => {
    const [from, to] = [day(t, -21), day(t, 0)]
    const byDay = await t.app.services.reporting.onDemand.netTotalsByDay('multi_ccy', { startTime: from, endTime: to })
    expect(new Set(byDay.map((d) => d.day)).size).toBe(20)
    for (let d = -21; d < 0; d++) {
      const res = await get(t, `${PATH}?startTime=${day(t, d)}&endTime=${day(t, d + 1)}&organizationId=multi_ccy`, { key: ACCT_KEY })
      const date = day(t, d).slice(0, 10)
      const mine = byDay.filter((x) => x.day === date).map(({ currency, value }) => ({ currency, value }))
      if (res.status === 404) expect(mine, date).toEqual([])
      else expect(mine, date).toEqual(res.json.netTotal)
    }
  })

  it('answers 404 for a window without fundings, 400 naming each bad parameter', async () => {
    expect((await get(t, `${PATH}?startTime=2020-01-01T00:00:00Z&endTime=2020-01-31T00:00:00Z`)).status).toBe(404)
    for (const [query, field] of [
      [`startTime=2026-02-30T00:00:00Z&endTime=${day(t, 0)}`, 'startTime'],
      [`startTime=${day(t, -1)}&endTime=${day(t, -2)}`, 'endTime'],
      [`startTime=${day(t, -100)}&endTime=${day(t, 0)}`, 'endTime'],
      [`startTime=${day(t, -2)}&endTime=${day(t, 0)}&groupName=%3Cx%3E`, 'groupName'],
      [`endTime=${day(t, 0)}`, 'startTime'],
    ] as const) {
      const res = await get(t, `${PATH}?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.json.details.map((d: { field: string }) => d.field), query).toEqual([field])
    }
  })
})
