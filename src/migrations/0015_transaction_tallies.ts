import { PostgresAdapter, sql, type Kysely } from 'kysely'
import { detailSections, linkedAuthorizationIds, renderSections } from './0015_transaction_tallies/details.js'
import { addTally, eventsOf, mergeTallies, tallyKey, type Tally, type Transaction, type TransactionType } from './0015_transaction_tallies/tallies.js'

// The on-demand reports' derived data: tallies, counts and exact decimal-text sums per organization, hour or
// funding day, category, card brand and currency, so that a page at any offset and every aggregate reads a few
// hundred tally rows instead of every transaction of a window; events, an index of times held inside `fields`
// (conversions, notifications of change); and details, each submitted purchase or refund rendered as its report
// lists it. The store keeps all three in step with its rows from here on (reporting/transactions/); rows stored
// before this migration are derived here, an organization at a time, by the rules as they were then, frozen beside
// it (0015_transaction_tallies/): a migration is history, and the store's rules may change after it.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('transaction_tallies')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('tally', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('payment_subtype', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    // Exact decimal text, like every amount of the store (never REAL or a float).
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('settled_count', 'integer', (c) => c.notNull())
    .addColumn('funded_count', 'integer', (c) => c.notNull())
    .addColumn('funded_amount', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_tallies_pk', ['organization_id', 'tally', 'bucket', 'category', 'payment_subtype', 'currency'])
    // Small rows always read by a prefix of their key: on SQLite the key's b-tree holds the whole row, so a range of
    // tallies is one ordered read with no lookup per row (12,500 lookups for the hours of 90 days otherwise).
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute()
  // PostgreSQL's equivalent for the hourly counts: an index that holds them, read without visiting the table.
  if (postgres) await sql`create index transaction_tallies_counts on transaction_tallies (organization_id, tally, bucket) include (payment_subtype, count)`.execute(db)
  await db.schema
    .createTable('transaction_events')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_time', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_events_pk', ['organization_id', 'kind', 'event_time', 'request_id'])
    .execute()
  // Each submitted purchase or refund rendered as the purchase and refund details report lists it, with its own
  // (organization, time, request id) indexes in both views, so a page reads 2,000 short rows. No key of its own:
  // rows are found by those indexes only, and the transactions' key already makes (organization, request) unique.
  await db.schema
    .createTable('transaction_details')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('request_time', 'text', (c) => c.notNull())
    .addColumn('submission_time', 'text', (c) => c.notNull())
    .addColumn('payment_subtype', 'text', (c) => c.notNull())
    // SQLite: UTF-8 bytes, so a page is sent as the stored bytes, never decoded into strings and encoded again.
    // PostgreSQL: text, which pg reads as it comes (bytea arrives hex-encoded, twice the size, and is decoded in JS).
    .addColumn('sections', postgres ? 'text' : 'blob', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('transaction_details_request_time').on('transaction_details').columns(['organization_id', 'request_time', 'request_id']).execute()
  await db.schema.createIndex('transaction_details_submission_time').on('transaction_details').columns(['organization_id', 'submission_time', 'request_id']).execute()
  await backfill(db as Kysely<Any>, postgres)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('transaction_details').execute()
  await db.schema.dropTable('transaction_events').execute()
  await db.schema.dropTable('transaction_tallies').execute()
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the tables as they were then
type Any = any
const CHUNK = 5000

async function backfill(db: Kysely<Any>, postgres: boolean): Promise<void> {
  let tallies = new Map<string, Tally>()
  let organization: string | undefined
  const flush = async () => {
    const rows = [...tallies.values()].map((t) => ({
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
    }))
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('transaction_tallies').values(rows.slice(i, i + 500)).execute()
    tallies = new Map()
  }
  let after: { organization: string; request: string } | undefined
  for (;;) {
    let q = db.selectFrom('transactions').selectAll()
    if (after) {
      const { organization: o, request: r } = after
      q = q.where((eb: Any) => eb.or([eb('organization_id', '>', o), eb.and([eb('organization_id', '=', o), eb('request_id', '>', r)])]))
    }
    const rows: Any[] = await q.orderBy('organization_id').orderBy('request_id').limit(CHUNK).execute()
    if (rows.length === 0) break
    const transactions = rows.map(toTransaction)
    // Rows come by organization: each organization's tallies are written once, when the next one begins.
    for (let start = 0; start < transactions.length; ) {
      const org = transactions[start]!.organizationId
      let end = start
      while (end < transactions.length && transactions[end]!.organizationId === org) end++
      if (org !== organization) {
        await flush()
        organization = org
      }
      for (const tally of mergeTallies(transactions.slice(start, end))) {
        const key = tallyKey(tally)
        const seen = tallies.get(key)
        tallies.set(key, seen ? addTally(seen, tally) : tally)
      }
      start = end
    }
    const events = transactions.flatMap(eventsOf).map((e) => ({ organization_id: e.organizationId, kind: e.kind, event_time: e.time, request_id: e.requestId }))
    for (let i = 0; i < events.length; i += 500) await db.insertInto('transaction_events').values(events.slice(i, i + 500)).execute()
    const details = await detailRows(db, transactions, postgres)
    for (let i = 0; i < details.length; i += 500) await db.insertInto('transaction_details').values(details.slice(i, i + 500)).execute()
    const last = rows[rows.length - 1]
    after = { organization: last.organization_id, request: last.request_id }
  }
  await flush()
}

/** The detail rows of a chunk; the authorizations its captures name are read by id (rows come by request id). */
async function detailRows(db: Kysely<Any>, transactions: Transaction[], postgres: boolean) {
  const authorizations = new Map<string, Transaction>()
  const byOrganization = new Map<string, string[]>()
  for (const t of transactions) {
    const linked = linkedAuthorizationIds([t])[0]
    if (linked !== undefined) byOrganization.set(t.organizationId, [...(byOrganization.get(t.organizationId) ?? []), linked])
  }
  for (const [organization, ids] of byOrganization) {
    for (let i = 0; i < ids.length; i += 500) {
      const found: Any[] = await db.selectFrom('transactions').selectAll().where('organization_id', '=', organization).where('request_id', 'in', ids.slice(i, i + 500)).execute()
      for (const row of found) authorizations.set(`${organization}\u0000${row.request_id}`, toTransaction(row))
    }
  }
  return transactions.flatMap((t) => {
    const sections = detailSections(t, authorizations.get(`${t.organizationId}\u0000${t.fields['Request']?.['LinkedRequestID'] ?? ''}`))
    return sections ? [{ organization_id: t.organizationId, request_id: t.requestId, request_time: t.requestTime, submission_time: t.submissionTime!, payment_subtype: t.paymentSubtype ?? '', sections: postgres ? renderSections(sections) : Buffer.from(renderSections(sections)) }] : []
  })
}

function toTransaction(row: Record<string, string | null>): Transaction {
  const t: Transaction = {
    organizationId: row['organization_id']!,
    requestId: row['request_id']!,
    type: row['type'] as TransactionType,
    requestTime: row['request_time']!,
    currency: row['currency']!,
    amount: row['amount']!,
    fields: JSON.parse(row['fields']!) as Transaction['fields'],
  }
  const optional = { submissionTime: 'submission_time', fundingDate: 'funding_date', paymentSubtype: 'payment_subtype', settlementCurrency: 'settlement_currency', settlementAmount: 'settlement_amount', batchId: 'batch_id' } as const
  for (const [key, column] of Object.entries(optional)) if (row[column] !== null) t[key as keyof typeof optional] = row[column]!
  return t
}
