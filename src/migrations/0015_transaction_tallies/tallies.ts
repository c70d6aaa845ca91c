// Frozen for migration 0015: the tally and event rules, and the exact decimal sums they use, as the store had them
// when the migration was written (reporting/transactions/tallies.ts, decimal.ts and catalog.ts's Transaction). An
// applied migration is history: the store's rules may change later, what this migration derived may not, so it
// imports no live code.

export const TRANSACTION_TYPES = ['authorization', 'capture', 'sale', 'refund', 'void', 'credit', 'chargeback'] as const
export type TransactionType = (typeof TRANSACTION_TYPES)[number]

export const DECISIONS = ['ACCEPT', 'REVIEW', 'REJECT', 'ERROR'] as const
export type Decision = (typeof DECISIONS)[number]

/** Group → field → value: every catalog field of a transaction that is not a core column. */
export type CatalogFields = Record<string, Record<string, string>>

export interface Transaction {
  /** The merchant id, e.g. `testrest`. */
  organizationId: string
  requestId: string
  type: TransactionType
  /** ISO-8601 UTC with milliseconds, e.g. `2026-03-01T10:15:00.000Z`. */
  requestTime: string
  /** When its batch was submitted for settlement; absent until batched. */
  submissionTime?: string
  /** `YYYY-MM-DD`; absent until funded. */
  fundingDate?: string
  /** VI, MC, AX, DI, DP, … */
  paymentSubtype?: string
  currency: string
  /** Exact decimal text. */
  amount: string
  settlementCurrency?: string
  settlementAmount?: string
  batchId?: string
  /** The Decision Manager decision at request time. */
  decision?: Decision
  fields: CatalogFields
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/

export interface Decimal {
  units: bigint
  scale: number
}

export function parseDecimal(value: string): Decimal {
  const m = DECIMAL.exec(value)
  if (!m) throw new Error(`not a decimal string: ${value}`)
  const fraction = m[3] ?? ''
  const units = BigInt(m[2]! + fraction)
  return { units: m[1] ? -units : units, scale: fraction.length }
}

export function formatDecimal({ units, scale }: Decimal): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = scale > 0 ? '.' + digits.slice(digits.length - scale) : ''
  return (negative && units !== 0n ? '-' : '') + whole + fraction
}

/** The exact sum of decimal strings, with the largest scale among them (`"0.1" + "0.2"` is `"0.3"`). */
export function sumDecimals(values: Iterable<string>): string {
  const total = new DecimalSum()
  for (const value of values) total.add(value)
  return total.toString()
}

/** A running exact sum (what sumDecimals does), for adding many values one at a time without re-parsing the total. */
export class DecimalSum {
  #total: Decimal = { units: 0n, scale: 0 }

  add(value: string): this {
    const d = parseDecimal(value)
    const total = this.#total
    if (d.scale === total.scale) total.units += d.units
    else if (d.scale < total.scale) total.units += d.units * 10n ** BigInt(total.scale - d.scale)
    else this.#total = { units: total.units * 10n ** BigInt(d.scale - total.scale) + d.units, scale: d.scale }
    return this
  }

  toString(): string {
    return formatDecimal(this.#total)
  }
}

/**
 * - `rows`: every transaction of the organization (one bucket): the store's generation, which only grows, since
 *   transactions are only ever inserted.
 * - `request`: purchase and refund details by request hour (counts only), to find a page's first row.
 * - `batch`: the same transactions by submission hour, SALES and CREDITS per currency (payment batch summaries,
 *   and purchase and refund details viewed by submission date).
 * - `funding`: by funding date, PURCHASES, REFUNDS, CHARGEBACKS and FEES per settlement currency (net fundings).
 */
export type TallyKind = 'rows' | 'request' | 'batch' | 'funding'

export interface TallyKey {
  organizationId: string
  tally: TallyKind
  /** Hour start (`2026-03-01T10:00:00.000Z`) for request and batch, `YYYY-MM-DD` for funding, '' for rows. */
  bucket: string
  category: string
  /** '' for a transaction without one (an eCheck). */
  paymentSubtype: string
  currency: string
}

export interface Tally extends TallyKey {
  count: number
  /** Exact decimal text: the conveyed (or sales, credit) amount. */
  amount: string
  settledCount: number
  fundedCount: number
  fundedAmount: string
}

export type EventKind = 'conversion' | 'notification_of_change'

export interface TransactionEvent {
  organizationId: string
  kind: EventKind
  /** ISO-8601 UTC with milliseconds. */
  time: string
  requestId: string
}

/** Types a purchase and refund details report lists once submitted to the processor; the batch summary's sales and credits. */
export const PURCHASE_TYPES: readonly string[] = ['sale', 'capture']
export const REFUND_TYPES: readonly string[] = ['refund', 'credit']
export const DETAIL_TYPES: readonly string[] = [...PURCHASE_TYPES, ...REFUND_TYPES]

export function hourOf(iso: string): string {
  return `${iso.slice(0, 13)}:00:00.000Z`
}

/** Listed in purchase and refund details: a purchase or refund submitted to the processor. */
export function isDetail(t: Pick<Transaction, 'type' | 'submissionTime'>): boolean {
  return t.submissionTime !== undefined && DETAIL_TYPES.includes(t.type)
}

function fundingCategory(type: string): string | undefined {
  if (PURCHASE_TYPES.includes(type)) return 'PURCHASES'
  if (REFUND_TYPES.includes(type)) return 'REFUNDS'
  return type === 'chargeback' ? 'CHARGEBACKS' : undefined
}

/** Status `P` (pending) or `F` (failed) is not done; no status with the value present is. */
const done = (status: string | undefined) => status !== 'P' && status !== 'F'

type Visit = (tally: TallyKind, bucket: string, category: string, currency: string, amount: string | undefined, settled: boolean, funded: boolean) => void

/** Calls `add` for each tally one transaction adds to (its amount undefined where the tally sums none). */
function visitTallies(t: Transaction, add: Visit): void {
  add('rows', '', '', '', undefined, false, false)
  if (isDetail(t)) {
    add('request', hourOf(t.requestTime), '', '', undefined, false, false)
    add('batch', hourOf(t.submissionTime!), PURCHASE_TYPES.includes(t.type) ? 'SALES' : 'CREDITS', t.currency, t.amount, false, false)
  }
  const category = fundingCategory(t.type)
  if (t.fundingDate === undefined || category === undefined) return
  const funded = done(t.fields['Funding']?.['Status'])
  const settled = t.settlementAmount !== undefined && done(t.fields['Settlement']?.['Status'])
  const currency = t.settlementCurrency ?? t.currency
  add('funding', t.fundingDate, category, currency, t.settlementAmount ?? t.amount, settled, funded)
  const fee = t.fields['Fee']?.['TotalFeeAmount']
  if (fee !== undefined) add('funding', t.fundingDate, 'FEES', t.fields['Fee']?.['TotalFeeCurrency'] ?? currency, fee, settled, funded)
}

export function tallyKey(k: TallyKey): string {
  return `${k.organizationId}\u0000${k.tally}\u0000${k.bucket}\u0000${k.category}\u0000${k.paymentSubtype}\u0000${k.currency}`
}

/** a + b for one key: counts added, amounts exactly (the larger scale kept, as sumDecimals does). */
export function addTally(a: Tally, b: Pick<Tally, 'count' | 'amount' | 'settledCount' | 'fundedCount' | 'fundedAmount'>): Tally {
  return {
    ...a,
    count: a.count + b.count,
    amount: sumDecimals([a.amount, b.amount]),
    settledCount: a.settledCount + b.settledCount,
    fundedCount: a.fundedCount + b.fundedCount,
    fundedAmount: sumDecimals([a.fundedAmount, b.fundedAmount]),
  }
}

interface Running {
  key: TallyKey
  count: number
  amount: DecimalSum
  settledCount: number
  fundedCount: number
  fundedAmount: DecimalSum
}

/**
 * The tallies of many transactions, one per key. On the store's write path for every row, so it makes no object
 * per row and tally, and parses each amount once.
 */
export function mergeTallies(transactions: Iterable<Transaction>): Tally[] {
  const merged = new Map<string, Running>()
  for (const t of transactions) {
    const subtype = t.paymentSubtype ?? ''
    visitTallies(t, (tally, bucket, category, currency, amount, settled, funded) => {
      const paymentSubtype = tally === 'rows' ? '' : subtype
      const key = `${t.organizationId}\u0000${tally}\u0000${bucket}\u0000${category}\u0000${paymentSubtype}\u0000${currency}`
      let running = merged.get(key)
      if (!running) {
        running = { key: { organizationId: t.organizationId, tally, bucket, category, paymentSubtype, currency }, count: 0, amount: new DecimalSum(), settledCount: 0, fundedCount: 0, fundedAmount: new DecimalSum() }
        merged.set(key, running)
      }
      running.count++
      if (settled) running.settledCount++
      if (amount !== undefined) running.amount.add(amount)
      if (funded) {
        running.fundedCount++
        if (amount !== undefined) running.fundedAmount.add(amount)
      }
    })
  }
  return [...merged.values()].map((r) => ({ ...r.key, count: r.count, amount: r.amount.toString(), settledCount: r.settledCount, fundedCount: r.fundedCount, fundedAmount: r.fundedAmount.toString() }))
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/

function eventTime(value: string | undefined): string | undefined {
  if (value === undefined || !ISO_UTC.test(value)) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}

/**
 * The events of a transaction: its Decision Manager review's conversion (`Conversion.ConversionDate`) and a
 * notification of change to its bank account (`NotificationOfChange.Time`, an extension to the catalog), each
 * when its time is ISO-8601 UTC.
 */
export function eventsOf(t: Transaction): TransactionEvent[] {
  const out: TransactionEvent[] = []
  const conversion = eventTime(t.fields['Conversion']?.['ConversionDate'])
  if (conversion !== undefined) out.push({ organizationId: t.organizationId, kind: 'conversion', time: conversion, requestId: t.requestId })
  const notice = eventTime(t.fields['NotificationOfChange']?.['Time'])
  if (notice !== undefined) out.push({ organizationId: t.organizationId, kind: 'notification_of_change', time: notice, requestId: t.requestId })
  return out
}
