import type { Kysely } from 'kysely'

// Issue 24: the request log's look-up by correlation id indexes the ids themselves, no longer a 32-bit hash of them.
// The server's own ids are now time-ordered (version 7 UUIDs, platform/http/correlation.ts), so this index is
// appended to; a hash scatters every row's entry at random, which over 2,000,000 rows cost about 15 µs of CPU per row
// written against about 1 µs (docs/benchmarks.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_log_correlation').execute()
  await db.schema.alterTable('request_log').dropColumn('correlation_key').execute()
  await db.schema.createIndex('request_log_correlation').on('request_log').column('correlation_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_log_correlation').execute()
  await db.schema.alterTable('request_log').addColumn('correlation_key', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.createIndex('request_log_correlation').on('request_log').column('correlation_key').execute()
}
