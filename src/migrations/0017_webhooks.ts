import type { Kysely } from 'kysely'

// Webhook notifications: signing keys (sealed like reporting secrets), subscriptions, the events that happened,
// one notification per (event, subscription) with its delivery state, and the log of every attempt. A
// notification's delivery runs as jobs (0005), written in the same transaction as the event (an outbox). Lists and
// policies are JSON text, so both dialects keep one shape.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('key_type', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('client_key_id', 'text')
    .addColumn('client_reference_code', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_keys_organization').on('webhook_keys').columns(['organization_id', 'created_at']).execute()

  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('products', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text', (c) => c.notNull())
    .addColumn('health_check_url', 'text')
    .addColumn('retry_policy', 'text', (c) => c.notNull())
    .addColumn('security_policy', 'text', (c) => c.notNull())
    .addColumn('notification_scope', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_subscriptions_organization').on('webhook_subscriptions').column('organization_id').execute()

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('event_date', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute()

  await db.schema
    .createTable('webhook_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
    // No foreign key: a subscription's notification history outlives the subscription.
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_notifications_webhook').on('webhook_notifications').columns(['webhook_id', 'created_at']).execute()
  await db.schema.createIndex('webhook_notifications_status').on('webhook_notifications').columns(['webhook_id', 'status']).execute()
  await db.schema.createIndex('webhook_notifications_event').on('webhook_notifications').column('event_id').execute()

  await db.schema
    .createTable('webhook_attempts')
    // The V-C-transaction-trace-id of the attempt.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('notification_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('retry_number', 'integer', (c) => c.notNull())
    .addColumn('request_type', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('worker', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_notification').on('webhook_attempts').columns(['notification_id', 'started_at']).execute()
  await db.schema.createIndex('webhook_attempts_started').on('webhook_attempts').column('started_at').execute()
  // Claiming a kind's due jobs in run_at order is an index range that stops at the claim's limit, however long the
  // queue (10,000 pending deliveries were a scan and a sort per claim with 0005's (status, run_at)).
  await db.schema.createIndex('jobs_kind_due').on('jobs').columns(['kind', 'status', 'run_at']).execute()
  // Claims always name their kind now, so 0005's (status, run_at) serves none, and every claim and completion paid
  // for keeping it.
  await db.schema.dropIndex('jobs_claim').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_kind_due').execute()
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_at']).execute()
  for (const table of ['webhook_attempts', 'webhook_notifications', 'webhook_events', 'webhook_subscriptions', 'webhook_keys']) await db.schema.dropTable(table).execute()
}
