// SQL for the transaction store. Writes are prepared multi-row inserts whose SQL text depends only on the row
// count (SQLite: one VALUES list; PostgreSQL: unnest of one text array per column), so a bulk load compiles no
// query per row and reuses the prepared statement. Reads are by organization and a half-open time window.
import { CompiledQuery, sql, type SelectQueryBuilder } from 'kysely'
import type { Dialect, Executor } from '../../platform/db/database.js'
import type { Database } from '../../platform/db/schema.js'
import type { TransactionsTable, TransactionTalliesTable } from './tables.js'
import type { Decision, Transaction, TransactionType } from './catalog.js'
import { detailSections, linkedAuthorizationIds, renderSections } from './details.js'
import { addTally, eventsOf, mergeTallies, type Tally } from './tallies.js'

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

/**
 * Inserts transactions and what the reports derive from them: tallies, events and detail rows. Give it a
 * transaction: they must commit together (a request id already stored fails the statement, and the rest with it).
 */
export async function insertTransactions(db: Executor, dialect: Dialect, transactions: readonly Transaction[]): Promise<void> {
  await insertRows(db, dialect, transactions)
  await addTallies(db, dialect, mergeTallies(transactions))
  const events = transactions.flatMap(eventsOf).map((e) => ({ organization_id: e.organizationId, kind: e.kind, event_time: e.time, request_id: e.requestId }))
  for (let start = 0; start < events.length; start += ROWS_PER_STATEMENT) await db.insertInto('transaction_events').values(events.slice(start, start + ROWS_PER_STATEMENT)).execute()
  await insertDetails(db, dialect, transactions)
}

/**
 * The detail rows of submitted purchases and refunds. A capture's authorization is found among the transactions
 * stored with it, or else among those stored before (a capture stored before its authorization shows none).
 */
async function insertDetails(db: Executor, dialect: Dialect, transactions: readonly Transaction[]): Promise<void> {
  const key = (organizationId: string, requestId: string) => `${organizationId}\u0000${requestId}`
  const known = new Map(transactions.map((t) => [key(t.organizationId, t.requestId), t]))
  const missing = new Map<string, string[]>()
  for (const t of transactions) {
    const linked = linkedAuthorizationIds([t])[0]
    if (linked !== undefined && !known.has(key(t.organizationId, linked))) missing.set(t.organizationId, [...(missing.get(t.organizationId) ?? []), linked])
  }
  for (const [organizationId, ids] of missing) {
    for (let start = 0; start < ids.length; start += ROWS_PER_STATEMENT) {
      const rows = await db.selectFrom('transactions').selectAll().where('organization_id', '=', organizationId).where('request_id', 'in', ids.slice(start, start + ROWS_PER_STATEMENT)).execute()
      for (const row of rows) known.set(key(organizationId, row.request_id), fromRow(row))
    }
  }
  const rows = transactions.flatMap((t) => {
    const sections = detailSections(t, known.get(key(t.organizationId, t.fields['Request']?.['LinkedRequestID'] ?? '')))
    return sections ? [{ organization_id: t.organizationId, request_id: t.requestId, request_time: t.requestTime, submission_time: t.submissionTime!, payment_subtype: t.paymentSubtype ?? '', sections: dialect === 'postgres' ? renderSections(sections) : Buffer.from(renderSections(sections)) }] : []
  })
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) await db.insertInto('transaction_details').values(rows.slice(start, start + ROWS_PER_STATEMENT)).execute()
}

async function insertRows(db: Executor, dialect: Dialect, transactions: readonly Transaction[]): Promise<void> {
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

const tallyRow = (t: Tally): TransactionTalliesTable => ({
  organization_id: t.organizationId,
  tally: t.tally,
  bucket: t.bucket,
  category: t.category,
  payment_subtype: t.paymentSubtype,
  currency: t.currency,
  count: t.count,
  amount: t.amount,
  settled_count: t.settledCount,
  funded_count: t.fundedCount,
  funded_amount: t.fundedAmount,
})
const TALLY_KEY = ['organization_id', 'tally', 'bucket', 'category', 'payment_subtype', 'currency'] as const

/**
 * Adds to the stored tallies. PostgreSQL adds in the upsert itself (numeric arithmetic on the decimal text; a
 * concurrent writer's upsert waits for the row and adds to its result). SQLite cannot add decimal text exactly, so
 * the stored rows are read and added to in code: safe because the rows' insert before it already holds SQLite's one
 * write lock until commit.
 */
async function addTallies(db: Executor, dialect: Dialect, tallies: Tally[]): Promise<void> {
  let rows = tallies.map(tallyRow)
  if (dialect === 'sqlite') {
    const stored = new Map<string, TransactionTalliesTable>()
    const organizations = [...new Set(tallies.map((t) => t.organizationId))]
    const buckets = [...new Set(tallies.map((t) => t.bucket))]
    for (let start = 0; start < buckets.length; start += ROWS_PER_STATEMENT) {
      const found = await db.selectFrom('transaction_tallies').selectAll().where('organization_id', 'in', organizations).where('bucket', 'in', buckets.slice(start, start + ROWS_PER_STATEMENT)).execute()
      for (const row of found) stored.set(rowKey(row), row)
    }
    // The stored row's counts and amounts added to the new tally by the tallies' own rule (addTally).
    rows = tallies.map((t) => {
      const row = tallyRow(t)
      const old = stored.get(rowKey(row))
      return old ? tallyRow(addTally(t, { count: old.count, amount: old.amount, settledCount: old.settled_count, fundedCount: old.funded_count, fundedAmount: old.funded_amount })) : row
    })
  }
  const added = (column: 'amount' | 'funded_amount') => sql<string>`(${sql.ref(`transaction_tallies.${column}`)}::numeric + ${sql.ref(`excluded.${column}`)}::numeric)::text`
  const counted = (column: 'count' | 'settled_count' | 'funded_count') => sql<number>`${sql.ref(`transaction_tallies.${column}`)} + ${sql.ref(`excluded.${column}`)}`
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await db
      .insertInto('transaction_tallies')
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns([...TALLY_KEY]).doUpdateSet((eb) =>
          dialect === 'postgres'
            ? { count: counted('count'), amount: added('amount'), settled_count: counted('settled_count'), funded_count: counted('funded_count'), funded_amount: added('funded_amount') }
            : { count: eb.ref('excluded.count'), amount: eb.ref('excluded.amount'), settled_count: eb.ref('excluded.settled_count'), funded_count: eb.ref('excluded.funded_count'), funded_amount: eb.ref('excluded.funded_amount') },
        ),
      )
      .execute()
  }
}

function rowKey(row: TransactionTalliesTable): string {
  return TALLY_KEY.map((column) => row[column]).join('\u0000')
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

/** The tables a load fills: their planner statistics are brought up to date after it. */
const LOADED_TABLES = ['transactions', 'transaction_tallies', 'transaction_events', 'transaction_details'] as const

/**
 * Brings the planner's statistics up to date after a bulk load. On PostgreSQL a freshly filled table has none until
 * autovacuum gets round to it, and the first report then plans as for an empty table (40-47 s instead of about 6 s
 * for 200,000 rows, issue 20). SQLite's `PRAGMA optimize` analyzes the tables whose statistics it judges missing or
 * stale (bounded by its own analysis limit), so a small load costs next to nothing. Outside a transaction: ANALYZE
 * inside one would hold its locks until the commit.
 */
export async function analyzeLoadedTables(db: Executor, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await db.executeQuery(CompiledQuery.raw(`analyze ${LOADED_TABLES.join(', ')}`))
  else await db.executeQuery(CompiledQuery.raw('pragma optimize'))
}

/** For tests and the benchmark: rows of one organization. */
export async function countOrganization(db: Executor, organizationId: string): Promise<number> {
  const row = await db.selectFrom('transactions').select(sql<string>`count(*)`.as('n')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow()
  return Number(row.n)
}
