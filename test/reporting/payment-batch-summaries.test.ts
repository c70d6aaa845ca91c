// GET /reporting/v3/payment-batch-summaries: sales and credits by currency and payment subtype checked to the cent
// against sums made here from the stored rows, over whole and partial hours; the rollUps (day, week from any start
// day, month) adding up to the window; a partner's breakdowns over its merchants and never another tenant's; the
// official SDK with its own key and in meta-key mode; errors naming the parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { day, exactSum, get, groupBy, isDetail, storedRows, type Row } from '../support/on-demand.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, cybersource, sdkCall, sdkConfig } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

const PATH = '/reporting/v3/payment-batch-summaries'
const DESCRIPTIONS: Record<string, string> = { VI: 'Visa', MC: 'Mastercard', AX: 'American Express', DI: 'Discover', DP: 'PINless Debit', '': 'eCheck' }

interface Summary {
  currencyCode: string
  paymentSubTypeDescription: string
  startTime: string
  endTime: string
  salesCount: number
  salesAmount: string
  creditCount: number
  creditAmount: string
  merchantId?: string
  accountId?: string
}

/** Per merchant (or one group), currency and subtype: sales and credits submitted in [from, to), from the rows. */
const stored = new Map<string, Promise<Row[]>>()
async function expected(organizations: string[], from: string, to: string, group: (org: string) => string = (o) => o) {
  // Read once per set of organizations: nothing in this file writes transactions.
  const key = organizations.join(',')
  if (!stored.has(key)) stored.set(key, storedRows(t, ...organizations))
  const rows = (await stored.get(key)!).filter((r) => isDetail(r) && r.submission_time! >= from && r.submission_time! < to)
  return [...groupBy(rows, (r) => `${group(r.organization_id)}|${r.currency}|${DESCRIPTIONS[r.payment_subtype ?? '']}`)].map(([key, g]) => {
    const sales = g.filter((r) => ['sale', 'capture'].includes(r.type))
    const credits = g.filter((r) => ['refund', 'credit'].includes(r.type))
    return { key, salesCount: sales.length, salesAmount: exactSum(sales.map((r) => r.amount)), creditCount: credits.length, creditAmount: exactSum(credits.map((r) => r.amount)) }
  })
}

/** The answer in the same shape (one period, or summed over the periods). */
function figures(list: Summary[], group: (s: Summary) => string = (s) => s.merchantId!) {
  return [...groupBy(list, (s) => `${group(s)}|${s.currencyCode}|${s.paymentSubTypeDescription}`)].map(([key, g]) => ({
    key,
    salesCount: g.reduce((n, s) => n + s.salesCount, 0),
    salesAmount: exactSum(g.map((s) => s.salesAmount)),
    creditCount: g.reduce((n, s) => n + s.creditCount, 0),
    creditAmount: exactSum(g.map((s) => s.creditAmount)),
  }))
}
const sorted = <T extends { key: string }>(list: T[]) => [...list].sort((a, b) => a.key.localeCompare(b.key))
/** Sums of the periods are compared by value: a period without sales says "0" where the whole window says "12.34". */
const normalized = <T extends { salesAmount: string; creditAmount: string }>(list: T[]) => list.map((x) => ({ ...x, salesAmount: exactSum([x.salesAmount, '0.00']), creditAmount: exactSum([x.creditAmount, '0.00']) }))

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('PaymentBatchSummariesApi as %s', (_name, merchantId, key) => {
  it("answers the organization's own totals over the window, to the cent", async () => {
    const [from, to] = [day(t, -40), day(t, -3)]
    const api = new cybersource.PaymentBatchSummariesApi(sdkConfig(t.baseUrl, merchantId, key), new cybersource.ApiClient())
    const res = await sdkCall((cb) => api.getPaymentBatchSummary(from, to, { organizationId: merchantId }, cb))
    expect(res.error).toBeNull()
    const list = res.data.paymentBatchSummaries as Summary[]
    expect(new Set(list.map((s) => s.currencyCode)).size).toBeGreaterThan(3)
    expect(list.every((s) => s.merchantId === merchantId && s.accountId === undefined)).toBe(true)
    expect(list.every((s) => new Date(s.startTime).getTime() === Date.parse(from) && new Date(s.endTime).getTime() === Date.parse(to))).toBe(true)
    expect(sorted(figures(list))).toEqual(sorted(await expected([merchantId], from, to)))
  })
})

describe('payment batch summaries', () => {
  it('reads partial first and last hours from the rows: a batch at 23:00:00.000 is in a window ending 23:00:00.500', async () => {
    const from = day(t, -10).replace('T00:00:00.000Z', 'T23:00:00.001Z')
    const to = day(t, -4).replace('T00:00:00.000Z', 'T23:00:00.500+00:00')
    const res = await get(t, `${PATH}?startTime=${from}&endTime=${encodeURIComponent(to)}`)
    expect(res.status).toBe(200)
    const want = await expected(['testrest'], from, new Date(to).toISOString())
    expect(sorted(figures(res.json.paymentBatchSummaries))).toEqual(sorted(want))
    // Without the half second, that last batch is out.
    const before = await expected(['testrest'], from, day(t, -4).replace('T00:00:00.000Z', 'T23:00:00.000Z'))
    expect(before).not.toEqual(want)
  })

  it.each([
    ['day', undefined, 1],
    ['week', 1, 7],
    ['week', 4, 7],
    ['month', undefined, 31],
  ] as const)('rolls up by %s (start day %s): periods cut to the window, adding up to its totals', async (rollUp, startDayOfWeek, maxDays) => {
    const [from, to] = [day(t, -75).replace('T00:00:00.000Z', 'T06:00:00.000Z'), day(t, -2)]
    const query = `startTime=${from}&endTime=${to}&rollUp=${rollUp}&breakdown=selected_merchant${startDayOfWeek ? `&startDayOfWeek=${startDayOfWeek}` : ''}`
    const res = await get(t, `${PATH}?${query}`)
    expect(res.status).toBe(200)
    const list = res.json.paymentBatchSummaries as Summary[]
    const periods = [...new Set(list.map((s) => `${s.startTime}/${s.endTime}`))].sort()
    expect(periods[0]!.startsWith(new Date(from).toISOString())).toBe(true)
    expect(periods.at(-1)!.endsWith(new Date(to).toISOString())).toBe(true)
    for (const p of periods) {
      const [start, end] = p.split('/').map((x) => Date.parse(x)) as [number, number]
      expect(end - start).toBeLessThanOrEqual(maxDays * 86_400_000)
      if (rollUp === 'week' && start !== Date.parse(from)) expect(new Date(start).getUTCDay() + 1).toBe(startDayOfWeek)
      if (rollUp === 'month' && start !== Date.parse(from)) expect(new Date(start).getUTCDate()).toBe(1)
      expect(sorted(figures(list.filter((s) => `${s.startTime}/${s.endTime}` === p)))).toEqual(sorted(await expected(['testrest'], new Date(start).toISOString(), new Date(end).toISOString())))
    }
    expect(sorted(normalized(figures(list)))).toEqual(sorted(normalized(await expected(['testrest'], from, to))))
  })

  it("breaks a partner's totals down over its merchants and accounts, and never shows another tenant's", async () => {
    const [from, to] = [day(t, -20), day(t, -6)]
    const window = `startTime=${from}&endTime=${to}`
    const all = await get(t, `${PATH}?${window}&rollUp=month&breakdown=all_merchant`, { key: ACCT_KEY })
    expect(all.status).toBe(200)
    const merchants = all.json.paymentBatchSummaries as Summary[]
    expect(new Set(merchants.map((s) => s.merchantId))).toEqual(new Set(['testrest', 'testrest_two']))
    expect(merchants.every((s) => s.accountId === 'testrest_acct')).toBe(true)
    expect(sorted(normalized(figures(merchants)))).toEqual(sorted(normalized(await expected(['testrest', 'testrest_two'], from, to))))

    const rolled = await get(t, `${PATH}?${window}&rollUp=month&breakdown=account_rollup`, { key: ACCT_KEY })
    const accounts = rolled.json.paymentBatchSummaries as Summary[]
    expect(accounts.every((s) => s.accountId === 'testrest_acct' && s.merchantId === undefined)).toBe(true)
    const acct = () => 'testrest_acct'
    expect(sorted(normalized(figures(accounts, (s) => s.accountId!)))).toEqual(sorted(normalized(await expected(['testrest', 'testrest_two'], from, to, acct))))

    const selected = await get(t, `${PATH}?${window}&rollUp=day&breakdown=selected_merchant&organizationId=testrest_two`, { key: ACCT_KEY })
    expect(new Set((selected.json.paymentBatchSummaries as Summary[]).map((s) => s.merchantId))).toEqual(new Set(['testrest_two']))

    // The unrelated merchant's own tree is itself alone; a merchant's all_merchant is itself.
    const other = await get(t, `${PATH}?${window}&rollUp=week&breakdown=all_merchant`, { key: OTHER_KEY })
    expect(new Set((other.json.paymentBatchSummaries as Summary[]).map((s) => s.merchantId))).toEqual(new Set(['othermerchant']))
    const own = await get(t, `${PATH}?${window}&rollUp=week&breakdown=all_merchant`)
    expect(new Set((own.json.paymentBatchSummaries as Summary[]).map((s) => s.merchantId))).toEqual(new Set(['testrest']))
    for (const key of [OTHER_KEY, TESTREST_KEY]) {
      const res = await get(t, `${PATH}?${window}&rollUp=week&breakdown=account_rollup&organizationId=testrest_acct`, { key })
      expect(res.status).toBe(404)
      expect(res.json.details).toEqual([{ field: 'organizationId', reason: 'no such organization' }])
    }
  })

  it('answers 400 naming each bad or missing parameter, 404 for an empty window', async () => {
    const window = `startTime=${day(t, -20)}&endTime=${day(t, -6)}`
    for (const [query, field] of [
      [`${window}&rollUp=day`, 'breakdown'],
      [`${window}&breakdown=all_merchant`, 'rollUp'],
      [`${window}&rollUp=year&breakdown=all_merchant`, 'rollUp'],
      [`${window}&rollUp=day&breakdown=everything`, 'breakdown'],
      [`${window}&rollUp=week&breakdown=all_merchant&startDayOfWeek=8`, 'startDayOfWeek'],
      [`${window}&rollUp=week&breakdown=all_merchant&startDayOfWeek=0`, 'startDayOfWeek'],
      [`${window}&rollUp=week&breakdown=all_merchant&startDayOfWeek=1.5`, 'startDayOfWeek'],
      [`startTime=${day(t, -400)}&endTime=${day(t, 0)}`, 'endTime'],
      [`startTime=2026-03-01T00:00:00.000-0600&endTime=2026-03-01T00:00:00.000-0500`, 'endTime'],
      [`startTime=2026-03-01&endTime=${day(t, 0)}`, 'startTime'],
    ] as const) {
      const res = await get(t, `${PATH}?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.json.details.map((d: { field: string }) => d.field), query).toEqual([field])
    }
    const account = await get(t, `${PATH}?${window}&rollUp=day&breakdown=selected_merchant`, { key: ACCT_KEY })
    expect(account.json.details).toEqual([{ field: 'organizationId', reason: 'selected_merchant needs organizationId naming a merchant' }])
    expect((await get(t, `${PATH}?startTime=2020-01-01T00:00:00Z&endTime=2020-06-01T00:00:00Z`)).status).toBe(404)
    expect((await get(t, `${PATH}?startTime=${day(t, -366)}&endTime=${day(t, 0)}`)).status).toBe(200)
  })
})
