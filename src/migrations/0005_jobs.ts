import { sql, type Kysely } from 'kysely'

// The jobs table: work to do later and again (webhook deliveries, report generation). A job is written in the
// caller's transaction (an outbox row), claimed with a lease, and retried with a backoff stored as its run_at.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'running', 'done', 'failed')`))
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    // NULLs never collide under a unique constraint (both dialects), so only jobs that name a key are deduplicated.
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  // Claiming looks for pending jobs by run_at and running jobs by lease expiry; pruning for done jobs by age.
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_at']).execute()
  await db.schema.createIndex('jobs_lease').on('jobs').columns(['status', 'lease_expires_at']).execute()
  await db.schema.createIndex('jobs_finished').on('jobs').columns(['status', 'finished_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').execute()
}
