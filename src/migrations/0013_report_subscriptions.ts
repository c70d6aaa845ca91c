import type { Kysely } from 'kysely'

// Report subscriptions: one row per (organization, reportName), custom or predefined (CLASSIC/STANDARD). Lists are
// stored as JSON text, so both dialects keep one shape; every read is filtered by organization_id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('report_subscriptions')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('report_name', 'text', (c) => c.notNull())
    .addColumn('subscription_type', 'text', (c) => c.notNull())
    .addColumn('subscription_status', 'text', (c) => c.notNull())
    .addColumn('report_definition_name', 'text', (c) => c.notNull())
    .addColumn('report_mime_type', 'text', (c) => c.notNull())
    .addColumn('report_frequency', 'text', (c) => c.notNull())
    .addColumn('report_interval', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('start_day', 'integer')
    .addColumn('report_fields', 'text', (c) => c.notNull())
    .addColumn('report_filters', 'text', (c) => c.notNull())
    .addColumn('report_preferences', 'text', (c) => c.notNull())
    .addColumn('group_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('report_subscriptions_pk', ['organization_id', 'report_name'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('report_subscriptions').execute()
}
