import type { Kysely } from 'kysely'

// The report engine: report instances (one per subscription and window, or per one-time request), each
// subscription's next run, the events of instances that ended (for webhooks to deliver), and sandbox
// organizations' reporting clocks. The keys that make "one instance per subscription and window, ever" and "one
// instance per identical one-time request" true are unique indexes: no process can insert a second one, whatever
// the timing. NULLs never collide under a unique index on either dialect, so a one-time instance (no
// subscription_name) and a scheduled one (no request_hash) each fall under one key only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('report_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('report_name', 'text', (c) => c.notNull())
    .addColumn('subscription_name', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('subscription_type', 'text', (c) => c.notNull())
    .addColumn('report_definition_name', 'text', (c) => c.notNull())
    .addColumn('report_frequency', 'text', (c) => c.notNull())
    .addColumn('report_mime_type', 'text', (c) => c.notNull())
    .addColumn('report_fields', 'text', (c) => c.notNull())
    .addColumn('report_filters', 'text', (c) => c.notNull())
    .addColumn('report_preferences', 'text', (c) => c.notNull())
    .addColumn('group_name', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('window_end', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'text')
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_token', 'text')
    .addColumn('row_count', 'integer')
    .addColumn('content_bytes', 'integer')
    .addColumn('stored_bytes', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('blob_key', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('report_instances_window').on('report_instances').columns(['organization_id', 'subscription_name', 'window_start', 'window_end']).unique().execute()
  await db.schema.createIndex('report_instances_request').on('report_instances').columns(['organization_id', 'request_hash']).unique().execute()
  // Search by the report's time frame or by when it ran, downloads by name and end, the scheduler's PENDING sweep,
  // and retention.
  await db.schema.createIndex('report_instances_org_end').on('report_instances').columns(['organization_id', 'window_end']).execute()
  await db.schema.createIndex('report_instances_org_queued').on('report_instances').columns(['organization_id', 'queued_at']).execute()
  await db.schema.createIndex('report_instances_name').on('report_instances').columns(['organization_id', 'report_name', 'window_end']).execute()
  await db.schema.createIndex('report_instances_status').on('report_instances').columns(['status', 'window_end']).execute()

  await db.schema
    .createTable('report_schedules')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('report_name', 'text', (c) => c.notNull())
    .addColumn('subscription_updated_at', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('report_schedules_pk', ['organization_id', 'report_name'])
    .execute()
  await db.schema.createIndex('report_schedules_due').on('report_schedules').column('next_run_at').execute()

  await db.schema
    .createTable('report_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('run', 'integer', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('report_events_run').on('report_events').columns(['instance_id', 'run']).unique().execute()
  await db.schema.createIndex('report_events_created').on('report_events').columns(['created_at']).execute()

  await db.schema
    .createTable('report_clocks')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('offset_ms', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['report_clocks', 'report_events', 'report_schedules', 'report_instances']) await db.schema.dropTable(table).execute()
}
