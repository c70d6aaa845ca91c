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

/** The tallies one transaction adds to (before merging). */
export function talliesOf(t: Transaction): Tally[] {
  const base = { organizationId: t.organizationId, paymentSubtype: t.paymentSubtype ?? '', settledCount: 0, fundedCount: 0, fundedAmount: '0' }
  const out: Tally[] = [{ ...base, tally: 'rows', bucket: '', category: '', paymentSubtype: '', currency: '', count: 1, amount: '0' }]
  if (isDetail(t)) {
    out.push({ ...base, tally: 'request', bucket: hourOf(t.requestTime), category: '', currency: '', count: 1, amount: '0' })
    out.push({ ...base, tally: 'batch', bucket: hourOf(t.submissionTime!), category: PURCHASE_TYPES.includes(t.type) ? 'SALES' : 'CREDITS', currency: t.currency, count: 1, amount: t.amount })
  }
  const category = fundingCategory(t.type)
  if (t.fundingDate !== undefined && category !== undefined) {
    const funded = done(t.fields['Funding']?.['Status'])
    const settled = t.settlementAmount !== undefined && done(t.fields['Settlement']?.['Status'])
    const amount = t.settlementAmount ?? t.amount
    const flags = { settledCount: settled ? 1 : 0, fundedCount: funded ? 1 : 0 }
    const currency = t.settlementCurrency ?? t.currency
    out.push({ ...base, ...flags, tally: 'funding', bucket: t.fundingDate, category, currency, count: 1, amount, fundedAmount: funded ? amount : '0' })
    const fee = t.fields['Fee']?.['TotalFeeAmount']
    if (fee !== undefined) {
      const feeCurrency = t.fields['Fee']?.['TotalFeeCurrency'] ?? currency
      out.push({ ...base, ...flags, tally: 'funding', bucket: t.fundingDate, category: 'FEES', currency: feeCurrency, count: 1, amount: fee, fundedAmount: funded ? fee : '0' })
    }
  }
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

/** The tallies of many transactions, one per key (amounts summed as they come, each parsed once). */
export function mergeTallies(transactions: Iterable<Transaction>): Tally[] {
  const merged = new Map<string, { tally: Tally; amount: DecimalSum; fundedAmount: DecimalSum }>()
  for (const t of transactions) {
    for (const tally of talliesOf(t)) {
      const key = tallyKey(tally)
      const seen = merged.get(key)
      if (!seen) {
        merged.set(key, { tally, amount: new DecimalSum().add(tally.amount), fundedAmount: new DecimalSum().add(tally.fundedAmount) })
        continue
      }
      seen.tally.count += tally.count
      seen.tally.settledCount += tally.settledCount
      seen.tally.fundedCount += tally.fundedCount
      seen.amount.add(tally.amount)
      seen.fundedAmount.add(tally.fundedAmount)
    }
  }
  return [...merged.values()].map(({ tally, amount, fundedAmount }) => ({ ...tally, amount: amount.toString(), fundedAmount: fundedAmount.toString() }))
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
