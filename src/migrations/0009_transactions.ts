import type { Kysely } from 'kysely'

// The transaction store every report reads. The columns reports filter, sort and sum on are real, indexed
// columns; every other catalog field (`Group.Field`) is kept in `fields`, JSON text of group → field → value.
// Amounts are exact decimal text on both dialects (never REAL): SQLite has no exact decimal type, and one
// representation keeps the two stores byte-for-byte alike; sums are done exactly in code (or `::numeric` on
// PostgreSQL). Times are ISO-8601 UTC text like every other table; funding_date is a `YYYY-MM-DD` date.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('transactions')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('request_time', 'text', (c) => c.notNull())
    .addColumn('submission_time', 'text')
    .addColumn('funding_date', 'text')
    .addColumn('payment_subtype', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('settlement_currency', 'text')
    .addColumn('settlement_amount', 'text')
    .addColumn('batch_id', 'text')
    .addColumn('decision', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('transactions_pk', ['organization_id', 'request_id'])
    .execute()
  // Every report reads one organization over a time window (by request or submission time, or funding date);
  // some by type; batch reports by batch. The request id breaks ties so pages are stable.
  const index = (name: string, columns: string[]) => db.schema.createIndex(name).on('transactions').columns(columns).execute()
  await index('transactions_request_time', ['organization_id', 'request_time', 'request_id'])
  await index('transactions_submission_time', ['organization_id', 'submission_time', 'request_id'])
  await index('transactions_funding_date', ['organization_id', 'funding_date'])
  await index('transactions_type_time', ['organization_id', 'type', 'request_time'])
  await index('transactions_batch', ['organization_id', 'batch_id'])

  // One row per organization whose sandbox data was generated: written first in the generating transaction, so
  // two processes starting at once cannot both generate (the second one's insert conflicts and it rolls back).
  await db.schema
    .createTable('transaction_sandbox_loads')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('seed', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text', (c) => c.notNull())
    .addColumn('rows', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('transaction_sandbox_loads').execute()
  await db.schema.dropTable('transactions').execute()
}
