// What the on-demand reports need kept up to date as transactions are stored, derived from each transaction by
// pure rules: tallies (counts and exact sums per organization, hour or day, category, card brand and currency) and
// events (times held inside `fields` that reports select by: Decision Manager conversions, notifications of
// change). The store writes them in the same transaction as the rows (repository.ts), so a report reading a
// tally never disagrees with the rows; migration 0015 derives them for rows stored before it.
import type { Transaction } from './catalog.js'
import { DecimalSum, sumDecimals } from './decimal.js'

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

/** The tallies one transaction adds to (before merging). */
export function talliesOf(t: Transaction): Tally[] {
  const out: Tally[] = []
  visitTallies(t, (tally, bucket, category, currency, amount, settled, funded) => {
    out.push({
      organizationId: t.organizationId,
      tally,
      bucket,
      category,
      paymentSubtype: tally === 'rows' ? '' : (t.paymentSubtype ?? ''),
      currency,
      count: 1,
      amount: amount ?? '0',
      settledCount: settled ? 1 : 0,
      fundedCount: funded ? 1 : 0,
      fundedAmount: funded && amount !== undefined ? amount : '0',
    })
  })
  return out
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
