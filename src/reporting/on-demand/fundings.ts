// GET /net-fundings: what was funded in the window, by funding date, in settlement currency. Read from the daily
// funding tallies (tallies.ts), so a month costs a few hundred tally rows whatever the volume; sums are exact.
// A merchant's fundings are its own; an account's are its merchants'; a reseller has none to give (403: the
// reference's summary reads "for an Account or a Merchant", and lists 403).
import type { OrganizationService } from '../../organizations/service.js'
import type { Executor } from '../../platform/db/database.js'
import { forbidden, notFound } from '../../platform/errors.js'
import { DecimalSum, parseDecimal } from '../transactions/decimal.js'
import * as repo from './repository.js'
import type { TallyRow } from './repository.js'
import type { FundingsQuery, NetFundings } from './schemas.js'
import { fundingDates, MAX_WINDOW_DAYS, readWindow } from './window.js'

const TYPES = ['PURCHASES', 'REFUNDS', 'FEES', 'CHARGEBACKS'] as const
type FundingType = (typeof TYPES)[number]

interface Line {
  type: FundingType
  paymentSubType: string
  currencyCode: string
  conveyedCount: number
  conveyed: DecimalSum
  settledCount: number
  fundedCount: number
  funded: DecimalSum
}

export function createFundingsReport(deps: { db: Executor; organizations: Pick<OrganizationService, 'find' | 'descendants'> }) {
  const { db, organizations } = deps

  /** The merchants whose fundings the organization sees. */
  async function merchantsOf(organizationId: string): Promise<string[]> {
    const org = await organizations.find(organizationId)
    // The gateway admitted it, so it exists; answered as the gateway answers an unknown one all the same.
    if (!org) throw notFound([{ field: 'organizationId', reason: 'no such organization' }])
    if (org.type === 'merchant') return [org.id]
    if (org.type === 'reseller') throw forbidden([{ field: 'organizationId', reason: 'net fundings are given for an account or a merchant' }])
    return (await organizations.descendants(org.id)).filter((o) => o.type === 'merchant').map((o) => o.id)
  }

  /** The merchants' funding tallies in the window's funding dates. */
  async function talliesOf(organizationId: string, query: FundingsQuery) {
    const window = readWindow(query, MAX_WINDOW_DAYS)
    const merchants = await merchantsOf(organizationId)
    const { from, to } = fundingDates(window)
    const rows = merchants.length === 0 ? [] : await repo.tallies(db, merchants, 'funding', from, to)
    return { window, rows }
  }

  return {
    async netFundings(organizationId: string, query: FundingsQuery): Promise<NetFundings> {
      const { window, rows } = await talliesOf(organizationId, query)
      if (rows.length === 0) throw notFound([{ reason: 'no transactions fall in the window' }])
      return { startTime: window.start, endTime: window.end, ...summarize(rows) }
    },

    /**
     * The net total of each funding date in the window, per currency: what netFundings answers for each day's
     * window alone, from one read of the tallies (the console's overview charts a month of days). A day with none is left out.
     */
    async netTotalsByDay(organizationId: string, query: FundingsQuery): Promise<{ day: string; currency: string; value: string }[]> {
      const { rows } = await talliesOf(organizationId, query)
      const byDay = new Map<string, TallyRow[]>()
      for (const r of rows) byDay.set(r.bucket, [...(byDay.get(r.bucket) ?? []), r])
      return [...byDay.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .flatMap(([day, dayRows]) => summarize(dayRows).netTotal.map((t) => ({ day, currency: t.currency, value: t.value })))
    },
  }
}

/** Lines by type, subtype and currency, and the totals: the body of a net-fundings answer. */
function summarize(rows: readonly TallyRow[]): Omit<NetFundings, 'startTime' | 'endTime'> {
  const lines = new Map<string, Line>()
  for (const r of rows) {
    const type = r.category as FundingType
    const key = `${TYPES.indexOf(type)}|${r.payment_subtype}|${r.currency}`
    let line = lines.get(key)
    if (!line) lines.set(key, (line = { type, paymentSubType: r.payment_subtype, currencyCode: r.currency, conveyedCount: 0, conveyed: new DecimalSum(), settledCount: 0, fundedCount: 0, funded: new DecimalSum() }))
    line.conveyedCount += r.count
    line.conveyed.add(r.amount)
    line.settledCount += r.settled_count
    line.fundedCount += r.funded_count
    line.funded.add(r.funded_amount)
  }
  const sorted = [...lines.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line)
  // Per type and currency, the funded amounts; the net total subtracts all but purchases.
  const totals = Object.fromEntries(TYPES.map((t) => [t, new Map<string, DecimalSum>()])) as Record<FundingType, Map<string, DecimalSum>>
  const net = new Map<string, DecimalSum>()
  for (const line of sorted) {
    const funded = line.funded.toString()
    const byCurrency = totals[line.type]
    if (!byCurrency.has(line.currencyCode)) byCurrency.set(line.currencyCode, new DecimalSum())
    byCurrency.get(line.currencyCode)!.add(funded)
    if (!net.has(line.currencyCode)) net.set(line.currencyCode, new DecimalSum())
    net.get(line.currencyCode)!.add(line.type === 'PURCHASES' ? funded : negate(funded))
  }
  const list = (m: Map<string, DecimalSum>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, value]) => ({ currency, value: value.toString() }))
  return {
    netFundingSummaries: sorted.map((l) => ({
      type: l.type,
      paymentSubType: l.paymentSubType,
      conveyedCount: l.conveyedCount,
      conveyedAmount: l.conveyed.toString(),
      settledCount: l.settledCount,
      fundedCount: l.fundedCount,
      fundedAmount: l.funded.toString(),
      currencyCode: l.currencyCode,
    })),
    totalPurchases: list(totals.PURCHASES),
    totalRefunds: list(totals.REFUNDS),
    totalFees: list(totals.FEES),
    totalChargebacks: list(totals.CHARGEBACKS),
    netTotal: list(net),
  }
}

function negate(value: string): string {
  return parseDecimal(value).units === 0n ? value : value.startsWith('-') ? value.slice(1) : `-${value}`
}
