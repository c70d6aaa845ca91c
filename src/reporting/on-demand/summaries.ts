// GET /payment-batch-summaries: sales (sales and captures) and credits (refunds and credits) submitted in the
// window, by currency and payment subtype, per merchant. A partner breaks them down over its tree: every merchant
// below it (all_merchant), per account (account_rollup), or the merchant it names (selected_merchant), in periods
// of a day, week or month (rollUp). Whole hours are read from the hourly batch tallies, the window's partial first
// and last hours from the rows; sums are exact.
import type { Organization, OrganizationService } from '../../organizations/service.js'
import type { Executor } from '../../platform/db/database.js'
import { invalid, notFound } from '../../platform/errors.js'
import { DecimalSum } from '../transactions/decimal.js'
import { PURCHASE_TYPES } from '../transactions/tallies.js'
import { paymentMethodOf } from '../transactions/payment-methods.js'
import * as repo from './repository.js'
import type { BatchSummary, PaymentBatchSummaries, SummariesQuery } from './schemas.js'
import { hourSpans, iso, MAX_SUMMARY_WINDOW_DAYS, periods, readWindow, type Period } from './window.js'

/** Whom a row names: a merchant (with its account when that is in the caller's tree) or an account. */
interface Group {
  id: string
  names: Pick<BatchSummary, 'accountId' | 'accountName' | 'merchantId' | 'merchantName'>
}

interface Line {
  period: number
  group: Group
  currency: string
  subtype: string
  salesCount: number
  sales: DecimalSum
  creditCount: number
  credits: DecimalSum
}

export function createSummariesReport(deps: { db: Executor; organizations: Pick<OrganizationService, 'find' | 'descendants'> }) {
  const { db, organizations } = deps

  /** Each merchant in scope and the group its figures go to. */
  async function scope(organizationId: string, breakdown: SummariesQuery['breakdown']): Promise<Map<string, Group>> {
    const acting = (await organizations.find(organizationId)) as Organization
    const merchant = (m: Organization, account?: Organization): Group => ({ id: m.id, names: { ...(account ? { accountId: account.id, accountName: account.name } : {}), merchantId: m.id, merchantName: m.name } })
    if (breakdown === undefined || breakdown === 'selected_merchant') {
      if (breakdown && acting.type !== 'merchant') throw invalid([{ field: 'organizationId', reason: 'selected_merchant needs organizationId naming a merchant' }])
      return new Map([[acting.id, merchant(acting)]])
    }
    const tree = [acting, ...(await organizations.descendants(acting.id))]
    const byId = new Map(tree.map((o) => [o.id, o]))
    // The nearest account above a merchant within the caller's tree (the caller itself included): the walk up ends
    // where the tree does, so nothing above the caller is ever named.
    const accountOf = (m: Organization): Organization | undefined => {
      for (let at = byId.get(m.parentId ?? ''); at; at = byId.get(at.parentId ?? '')) if (at.type === 'account') return at
      return undefined
    }
    const groups = new Map<string, Group>()
    for (const m of tree.filter((o) => o.type === 'merchant')) {
      const account = accountOf(m)
      if (breakdown === 'all_merchant') groups.set(m.id, merchant(m, account))
      else {
        const owner = account ?? acting
        groups.set(m.id, { id: owner.id, names: { accountId: owner.id, accountName: owner.name } })
      }
    }
    return groups
  }

  return async function paymentBatchSummaries(organizationId: string, query: SummariesQuery): Promise<PaymentBatchSummaries> {
    const window = readWindow(query, MAX_SUMMARY_WINDOW_DAYS)
    if ((query.rollUp === undefined) !== (query.breakdown === undefined)) {
      throw invalid([{ field: query.rollUp === undefined ? 'rollUp' : 'breakdown', reason: 'rollUp and breakdown are given together' }])
    }
    const groups = await scope(organizationId, query.breakdown)
    const spans: Period[] = query.rollUp ? periods(window, query.rollUp, query.startDayOfWeek ?? 1) : [{ startMs: window.startMs, endMs: window.endMs }]
    const merchants = [...groups.keys()]
    const { head, whole, tail } = hourSpans(window)
    const [tallied, ...edges] = merchants.length === 0 ? [[]] : await Promise.all([whole ? repo.tallies(db, merchants, 'batch', ...whole) : [], ...[head, tail].map((s) => (s ? repo.submittedRows(db, merchants, ...s) : []))])
    const lines = new Map<string, Line>()
    const add = (organization: string, time: string, subtype: string, currency: string, sale: boolean, count: number, amount: string) => {
      const period = periodOf(spans, Date.parse(time))
      const group = groups.get(organization)!
      const key = `${period}\u0000${group.id}\u0000${currency}\u0000${subtype}`
      let line = lines.get(key)
      if (!line) lines.set(key, (line = { period, group, currency, subtype, salesCount: 0, sales: new DecimalSum(), creditCount: 0, credits: new DecimalSum() }))
      if (sale) {
        line.salesCount += count
        line.sales.add(amount)
      } else {
        line.creditCount += count
        line.credits.add(amount)
      }
    }
    for (const t of tallied) add(t.organization_id, t.bucket, t.payment_subtype, t.currency, t.category === 'SALES', t.count, t.amount)
    for (const r of edges.flat()) add(r.organization_id, r.submission_time!, r.payment_subtype ?? '', r.currency, PURCHASE_TYPES.includes(r.type), 1, r.amount)
    if (lines.size === 0) throw notFound([{ reason: 'no transactions fall in the window' }])
    const rows = [...lines.values()].map((l) => ({ line: l, description: paymentMethodOf(l.subtype).description }))
    rows.sort((a, b) => a.line.period - b.line.period || compare(a.line.group.id, b.line.group.id) || compare(a.line.currency, b.line.currency) || compare(a.description, b.description))
    return {
      startTime: window.start,
      endTime: window.end,
      paymentBatchSummaries: rows.map(({ line, description }) => ({
        currencyCode: line.currency,
        paymentSubTypeDescription: description,
        startTime: iso(spans[line.period]!.startMs),
        endTime: iso(spans[line.period]!.endMs),
        salesCount: line.salesCount,
        salesAmount: line.sales.toString(),
        creditCount: line.creditCount,
        creditAmount: line.credits.toString(),
        ...line.group.names,
      })),
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The index of the period holding `ms` (periods are contiguous and ordered). */
function periodOf(spans: readonly Period[], ms: number): number {
  let lo = 0
  let hi = spans.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (spans[mid]!.startMs <= ms) lo = mid
    else hi = mid - 1
  }
  return lo
}
