import { sql, type Kysely } from 'kysely'

// Issue 24: the API request log (src/request-log/): one row per API call, written in batches off the request path,
// kept REQUEST_LOG_RETENTION_DAYS and pruned by housekeeping. No body, no header value, no secret: the path's
// secret query parameters are masked before the row is made. Read newest first by organization (the console),
// by correlation id (support), and deleted by age (housekeeping), hence the three indexes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_us', 'integer', (c) => c.notNull())
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('correlation_key', 'integer', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .execute()
  // Only the rows of an organization (banking's have none), and correlation ids through a 32-bit hash of theirs:
  // an index of random 36-character UUIDs cost the writes about twice what the table itself did (docs/benchmarks.md).
  await db.schema.createIndex('request_log_organization').on('request_log').columns(['organization_id', 'at', 'id']).where(sql.ref('organization_id'), 'is not', null).execute()
  await db.schema.createIndex('request_log_correlation').on('request_log').column('correlation_key').execute()
  await db.schema.createIndex('request_log_age').on('request_log').column('at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_log').execute()
}
