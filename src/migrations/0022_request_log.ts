import type { Kysely } from 'kysely'

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
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .execute()
  await db.schema.createIndex('request_log_organization').on('request_log').columns(['organization_id', 'at', 'id']).execute()
  await db.schema.createIndex('request_log_correlation').on('request_log').column('correlation_id').execute()
  await db.schema.createIndex('request_log_age').on('request_log').column('at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_log').execute()
}
