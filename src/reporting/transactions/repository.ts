// SQL for the transaction store. Writes are prepared multi-row inserts whose SQL text depends only on the row
// count (SQLite: one VALUES list; PostgreSQL: unnest of one text array per column), so a bulk load compiles no
// query per row and reuses the prepared statement. Reads are by organization and a half-open time window.
import { CompiledQuery, sql, type SelectQueryBuilder } from 'kysely'
import type { Dialect, Executor } from '../../platform/db/database.js'
import type { Database, TransactionsTable } from '../../platform/db/schema.js'
import type { Decision, Transaction, TransactionType } from './catalog.js'

const COLUMNS = [
  'organization_id',
  'request_id',
  'type',
  'request_time',
  'submission_time',
  'funding_date',
  'payment_subtype',
  'currency',
  'amount',
  'settlement_currency',
  'settlement_amount',
  'batch_id',
  'decision',
  'fields',
] as const satisfies readonly (keyof TransactionsTable)[]

/** Rows per insert statement: 14 columns × 500 stays far below both dialects' bound-parameter limits. */
export const ROWS_PER_STATEMENT = 500

type Row = (string | null)[]

function toRow(t: Transaction): Row {
  return [
    t.organizationId,
    t.requestId,
    t.type,
    t.requestTime,
    t.submissionTime ?? null,
    t.fundingDate ?? null,
    t.paymentSubtype ?? null,
    t.currency,
    t.amount,
    t.settlementCurrency ?? null,
    t.settlementAmount ?? null,
    t.batchId ?? null,
    t.decision ?? null,
    JSON.stringify(t.fields),
  ]
}

const sqliteInserts = new Map<number, string>()
function sqliteInsert(rows: number): string {
  let text = sqliteInserts.get(rows)
  if (text === undefined) {
    const tuple = `(${COLUMNS.map(() => '?').join(',')})`
    text = `insert into transactions (${COLUMNS.join(',')}) values ${Array.from({ length: rows }, () => tuple).join(',')}`
    sqliteInserts.set(rows, text)
  }
  return text
}

const POSTGRES_INSERT = `insert into transactions (${COLUMNS.join(',')}) select * from unnest(${COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(',')})`

/** Inserts transactions through the caller's handle or transaction; a request id already stored fails the statement. */
export async function insertTransactions(db: Executor, dialect: Dialect, transactions: readonly Transaction[]): Promise<void> {
  for (let start = 0; start < transactions.length; start += ROWS_PER_STATEMENT) {
    const chunk = transactions.slice(start, start + ROWS_PER_STATEMENT)
    if (dialect === 'postgres') {
      const columns: (string | null)[][] = COLUMNS.map(() => new Array<string | null>(chunk.length))
      chunk.forEach((t, r) => toRow(t).forEach((v, c) => (columns[c]![r] = v)))
      await db.executeQuery(CompiledQuery.raw(POSTGRES_INSERT, columns))
    } else {
      const params: (string | null)[] = []
      for (const t of chunk) for (const v of toRow(t)) params.push(v)
      await db.executeQuery(CompiledQuery.raw(sqliteInsert(chunk.length), params))
    }
  }
}

/** Which of these request ids an organization already has. */
export async function existingRequestIds(db: Executor, organizationId: string, requestIds: readonly string[]): Promise<string[]> {
  if (requestIds.length === 0) return []
  const rows = await db.selectFrom('transactions').select('request_id').where('organization_id', '=', organizationId).where('request_id', 'in', requestIds).execute()
  return rows.map((r) => r.request_id)
}

export type TimeField = 'requestTime' | 'submissionTime' | 'fundingDate'

const TIME_COLUMN = { requestTime: 'request_time', submissionTime: 'submission_time', fundingDate: 'funding_date' } as const

export interface TransactionQuery {
  organizationId: string
  /** Which time the window applies to (default requestTime); fundingDate windows take `YYYY-MM-DD` bounds. */
  by?: TimeField
  /** Inclusive lower bound, ISO-8601 UTC (or a date for fundingDate). */
  from: string
  /** Exclusive upper bound. */
  to: string
  types?: readonly TransactionType[]
  paymentSubtypes?: readonly string[]
  batchId?: string
  decision?: Decision
}

type Select = SelectQueryBuilder<Database, 'transactions', object>

function filtered(db: Executor, query: TransactionQuery): Select {
  const column = TIME_COLUMN[query.by ?? 'requestTime']
  let q: Select = db.selectFrom('transactions').where('organization_id', '=', query.organizationId).where(column, '>=', query.from).where(column, '<', query.to)
  if (query.types?.length) q = q.where('type', 'in', query.types)
  if (query.paymentSubtypes?.length) q = q.where('payment_subtype', 'in', query.paymentSubtypes)
  if (query.batchId !== undefined) q = q.where('batch_id', '=', query.batchId)
  if (query.decision !== undefined) q = q.where('decision', '=', query.decision)
  return q
}

/** One page, ordered by the window's time and then request id (stable across pages). */
export async function listTransactions(db: Executor, query: TransactionQuery, page: { offset: number; limit: number }): Promise<Transaction[]> {
  const column = TIME_COLUMN[query.by ?? 'requestTime']
  const rows = await filtered(db, query).selectAll().orderBy(column).orderBy('request_id').offset(page.offset).limit(page.limit).execute()
  return rows.map(fromRow)
}

/**
 * Every matching transaction, in order, read page by page after the last one seen (keyset paging), so a report
 * over millions of rows holds one page at a time and does not slow down with depth as an offset would.
 */
export async function* iterateTransactions(db: Executor, query: TransactionQuery, pageSize = 2000): AsyncGenerator<Transaction> {
  const column = TIME_COLUMN[query.by ?? 'requestTime']
  let after: { time: string; id: string } | undefined
  for (;;) {
    // Past the first page the page's own bound is the only lower bound on the time: with the window's beside it, the
    // databases scan the index from the window's start on every page (quadratic over a large window).
    let q = filtered(db, after ? { ...query, from: after.time } : query)
    if (after) {
      const { time, id } = after
      q = q.where((eb) => eb.or([eb(column, '>', time), eb('request_id', '>', id)]))
    }
    const rows = await q.selectAll().orderBy(column).orderBy('request_id').limit(pageSize).execute()
    for (const row of rows) yield fromRow(row)
    if (rows.length < pageSize) return
    const last = rows[rows.length - 1]!
    after = { time: last[column]!, id: last.request_id }
  }
}

export async function countTransactions(db: Executor, query: TransactionQuery): Promise<number> {
  const row = await filtered(db, query).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Transactions per type of one organization (all time). */
export async function countByType(db: Executor, organizationId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('transactions')
    .select(['type', (eb) => eb.fn.countAll().as('n')])
    .where('organization_id', '=', organizationId)
    .groupBy('type')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]))
}

export async function getTransaction(db: Executor, organizationId: string, requestId: string): Promise<Transaction | undefined> {
  const row = await db.selectFrom('transactions').selectAll().where('organization_id', '=', organizationId).where('request_id', '=', requestId).executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/** Records that an organization's sandbox data is being generated; false when another process already did. */
export async function claimSandboxLoad(db: Executor, load: { organizationId: string; seed: string; endDate: string; rows: number; createdAt: string }): Promise<boolean> {
  const result = await db
    .insertInto('transaction_sandbox_loads')
    .values({ organization_id: load.organizationId, seed: load.seed, end_date: load.endDate, rows: load.rows, created_at: load.createdAt })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
}

export async function hasSandboxLoad(db: Executor, organizationId: string): Promise<boolean> {
  return (await db.selectFrom('transaction_sandbox_loads').select('organization_id').where('organization_id', '=', organizationId).executeTakeFirst()) !== undefined
}

function fromRow(row: TransactionsTable): Transaction {
  const t: Transaction = {
    organizationId: row.organization_id,
    requestId: row.request_id,
    type: row.type as TransactionType,
    requestTime: row.request_time,
    currency: row.currency,
    amount: row.amount,
    fields: JSON.parse(row.fields) as Transaction['fields'],
  }
  if (row.submission_time !== null) t.submissionTime = row.submission_time
  if (row.funding_date !== null) t.fundingDate = row.funding_date
  if (row.payment_subtype !== null) t.paymentSubtype = row.payment_subtype
  if (row.settlement_currency !== null) t.settlementCurrency = row.settlement_currency
  if (row.settlement_amount !== null) t.settlementAmount = row.settlement_amount
  if (row.batch_id !== null) t.batchId = row.batch_id
  if (row.decision !== null) t.decision = row.decision as Decision
  return t
}

/** For tests and the benchmark: rows of one organization. */
export async function countOrganization(db: Executor, organizationId: string): Promise<number> {
  const row = await db.selectFrom('transactions').select(sql<string>`count(*)`.as('n')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow()
  return Number(row.n)
}
