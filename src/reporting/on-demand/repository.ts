// SQL of the on-demand reports, over the transaction store's rows, tallies, events and detail rows. Every statement
// names the organizations it reads first, so it runs on the (organization, …) indexes and primary keys and never
// reads another merchant's rows. Amounts come back as the stored decimal text; sums are made exactly in code.
import { sql } from 'kysely'
import type { Dialect, Executor } from '../../platform/db/database.js'
import type { TransactionTalliesTable } from '../transactions/tables.js'
import { DETAIL_TYPES } from '../transactions/tallies.js'

export type View = 'request' | 'submission'

/** A stored transaction as the event reports read it: the core columns they use and `fields` still as JSON text. */
export interface StoredRow {
  organization_id: string
  request_id: string
  type: string
  request_time: string
  submission_time: string | null
  payment_subtype: string | null
  currency: string
  amount: string
  batch_id: string | null
  fields: string
}

const ROW_COLUMNS = ['organization_id', 'request_id', 'type', 'request_time', 'submission_time', 'payment_subtype', 'currency', 'amount', 'batch_id', 'fields'] as const
const TIME = { request: 'request_time', submission: 'submission_time' } as const

/** How many transactions the organization has: its store's generation (rows are only ever added). */
export async function generation(db: Executor, organizationId: string): Promise<number> {
  const row = await db.selectFrom('transaction_tallies').select('count').where('organization_id', '=', organizationId).where('tally', '=', 'rows').where('bucket', '=', '').executeTakeFirst()
  return row?.count ?? 0
}

export interface DetailFilter {
  organizationId: string
  view: View
  /** A card brand, or every one (eCheck payments included). */
  paymentSubtype?: string
}

/** Purchase and refund detail counts per whole hour in [from, to), in order, from the tallies. */
export async function detailHours(db: Executor, filter: DetailFilter, from: string, to: string): Promise<{ bucket: string; n: number }[]> {
  let q = db
    .selectFrom('transaction_tallies')
    .select(['bucket', sql<number | string>`sum(count)`.as('n')])
    .where('organization_id', '=', filter.organizationId)
    .where('tally', '=', filter.view === 'request' ? 'request' : 'batch')
    .where('bucket', '>=', from)
    .where('bucket', '<', to)
  if (filter.paymentSubtype !== undefined) q = q.where('payment_subtype', '=', filter.paymentSubtype)
  const rows = await q.groupBy('bucket').orderBy('bucket').execute()
  return rows.map((r) => ({ bucket: r.bucket, n: Number(r.n) }))
}

function details(db: Executor, filter: DetailFilter, from: string, to: string) {
  const column = TIME[filter.view]
  let q = db.selectFrom('transaction_details').where('organization_id', '=', filter.organizationId).where(column, '>=', from).where(column, '<', to)
  if (filter.paymentSubtype !== undefined) q = q.where('payment_subtype', '=', filter.paymentSubtype)
  return q
}

/** Purchase and refund details in [from, to) counted from the detail rows (for a window's partial first and last hours). */
export async function countDetails(db: Executor, filter: DetailFilter, from: string, to: string): Promise<number> {
  const row = await details(db, filter, from, to).select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Between a page's rows in the one value they are read as. JSON text never holds it unescaped (a control
 * character), and a stored row's sections are compact JSON joined by line breaks.
 */
const ROW_SEPARATOR = 0x1e

/**
 * The stored sections of `limit` details from [from, to) after skipping `skip`, in the view's time order, then by
 * request id. On SQLite read as one value and returned as views of it: 2,000 rows were 2,000 blobs of about 1.2 kB,
 * each a Buffer of its own with its own memory outside V8's heap, allocated and freed per first-time page (4-5 ms of
 * the page against 1-2 ms for the one value, and a part of the collections that made its tail). On PostgreSQL row by
 * row: its rows come as strings whatever the query, and its string_agg took 3 ms more than the rows it joined.
 */
export async function detailSections(db: Executor, dialect: Dialect, filter: DetailFilter, from: string, to: string, skip: number, limit: number): Promise<Buffer[] | string[]> {
  const column = TIME[filter.view]
  const page = details(db, filter, from, to).select('sections').orderBy(column).orderBy('request_id').limit(limit).offset(skip)
  // PostgreSQL's rows arrive as strings (the column is text) and are given as they are: details-body.ts's encodeRows
  // writes a JSON page's into one reused buffer, where a Buffer each was memory outside V8's heap (full collections).
  if (dialect === 'postgres') return (await page.execute()).map((r) => r.sections.toString())
  // string_agg is group_concat's other name (SQLite 3.44 on). It takes the rows in the order the subquery delivers
  // them: a subquery with a LIMIT is neither flattened into the aggregate nor stripped of its ORDER BY, and nothing
  // stands between the two to reorder them. An ORDER BY inside the call would state it, but SQLite then sorts the
  // page's 2.4 MB again (7-8 ms a page).
  const joined = sql<Buffer | null>`cast(string_agg(sections, ${String.fromCharCode(ROW_SEPARATOR)}) as blob)`
  const { rows } = await db.selectFrom(page.as('page')).select(joined.as('rows')).executeTakeFirstOrThrow()
  if (rows === null) return []
  const out: Buffer[] = []
  for (let start = 0; ; ) {
    const end = rows.indexOf(ROW_SEPARATOR, start)
    if (end < 0) {
      out.push(rows.subarray(start))
      return out
    }
    out.push(rows.subarray(start, end))
    start = end + 1
  }
}

/** A tally as the reports read it: every column but its kind, which the query fixes. */
export type TallyRow = Omit<TransactionTalliesTable, 'tally'>

/** Tallies of a kind for these organizations with buckets in [from, to). */
export function tallies(db: Executor, organizationIds: readonly string[], tally: 'batch' | 'funding', from: string, to: string): Promise<TallyRow[]> {
  return db
    .selectFrom('transaction_tallies')
    .select(['organization_id', 'bucket', 'category', 'payment_subtype', 'currency', 'count', 'amount', 'settled_count', 'funded_count', 'funded_amount'])
    .where('organization_id', 'in', organizationIds)
    .where('tally', '=', tally)
    .where('bucket', '>=', from)
    .where('bucket', '<', to)
    .execute()
}

/** Submitted purchases and refunds of these organizations by submission time in [from, to) (partial hours). */
export function submittedRows(db: Executor, organizationIds: readonly string[], from: string, to: string) {
  return db
    .selectFrom('transactions')
    .select(['organization_id', 'type', 'submission_time', 'payment_subtype', 'currency', 'amount'])
    .where('organization_id', 'in', organizationIds)
    .where('submission_time', '>=', from)
    .where('submission_time', '<', to)
    .where('type', 'in', DETAIL_TYPES)
    .execute()
}

/** Up to `limit` transactions with an event of this kind in [from, to), by event time then request id, after a key. */
export async function eventRows(
  db: Executor,
  organizationId: string,
  kind: string,
  window: { from: string; to: string },
  after: { time: string; requestId: string } | undefined,
  limit: number,
): Promise<(StoredRow & { event_time: string })[]> {
  let q = db
    .selectFrom('transaction_events as e')
    .innerJoin('transactions as t', (join) => join.onRef('t.organization_id', '=', 'e.organization_id').onRef('t.request_id', '=', 'e.request_id'))
    .select(['e.event_time', ...ROW_COLUMNS.map((c) => `t.${c}` as const)])
    .where('e.organization_id', '=', organizationId)
    .where('e.kind', '=', kind)
    .where('e.event_time', '>=', window.from)
    .where('e.event_time', '<', window.to)
  if (after) {
    const { time, requestId } = after
    // The plain bound starts the index range at the key (both databases); the OR only settles rows of that instant.
    q = q.where('e.event_time', '>=', time).where((eb) => eb.or([eb('e.event_time', '>', time), eb('e.request_id', '>', requestId)]))
  }
  return q.orderBy('e.event_time').orderBy('e.request_id').limit(limit).execute()
}
