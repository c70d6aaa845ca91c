// For the on-demand report tests: windows relative to the app's clock (the sandbox's 90 days end on its date), the
// stored rows read straight from the database, and sums made here with BigInt — independently of the store's
// tallies and of the reports' code — to compare the reports' figures with.
import type { TransactionsTable } from '../../src/reporting/transactions/tables.js'
import type { TestApp } from './harness.js'
import { signedHeaders, TESTREST_KEY, type SignOptions } from './reporting.js'

/** `YYYY-MM-DDT00:00:00.000Z` of the clock's day plus `days` (negative for earlier). */
export function day(t: TestApp, days: number): string {
  const midnight = Date.parse(t.clock.now().toISOString().slice(0, 10))
  return new Date(midnight + days * 86_400_000).toISOString()
}

/** A signed GET, with an Accept header if given. */
export function get(t: TestApp, path: string, o: { key?: SignOptions['key']; merchantId?: string; accept?: string } = {}) {
  const headers = signedHeaders({ method: 'GET', path, key: o.key ?? TESTREST_KEY, merchantId: o.merchantId, date: t.clock.now() })
  return t.call('GET', path, { headers: { ...headers, ...(o.accept ? { accept: o.accept } : {}) } })
}

/** A stored transaction row, as the table holds it. */
export type Row = TransactionsTable

/** Every stored transaction of these organizations. */
export async function storedRows(t: TestApp, ...organizations: string[]): Promise<Row[]> {
  return (await t.db.kysely.selectFrom('transactions').selectAll().where('organization_id', 'in', organizations).execute())
}

/** Submitted purchases and refunds: what purchase and refund details and batch summaries list. */
export const isDetail = (r: Row) => ['sale', 'capture', 'refund', 'credit'].includes(r.type) && r.submission_time !== null

/** The exact sum of decimal strings, at the largest scale among them ("0" for none). */
export function exactSum(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.split('.')[1] ?? '').length))
  let units = 0n
  for (const v of values) {
    const [whole, fraction = ''] = v.replace('-', '').split('.')
    const n = BigInt(whole! + fraction.padEnd(scale, '0'))
    units += v.startsWith('-') ? -n : n
  }
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  return (negative ? '-' : '') + (scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits)
}

/** Groups rows by a key. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}
