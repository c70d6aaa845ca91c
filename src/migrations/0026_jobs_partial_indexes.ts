import { sql, type Kysely } from 'kysely'

// Issue 20 (webhook delivery): each index of the jobs table held every job, with its status as a column, so writing
// a job added an entry to all three and each change of status (pending → running → done) moved its entry in all
// three. Each query that uses them looks for one status only, so each index now holds the jobs of that status and
// no status column: a job enters the pending index when written, leaves it for the running one when claimed, and
// leaves that for the done one when completed (one entry at each step, in one index or from one to the next). Failed
// jobs, which stay for inspection, are in none: nothing looks for them by these columns. A query uses one of these
// only when its WHERE implies the index's condition, which the repository's queries do with the status as a literal
// (`status = 'pending'`); test/jobs-indexes.test.ts checks it through each database's EXPLAIN.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A kind's due jobs in run_at order (claims): an index range that stops at the claim's limit.
  await db.schema.createIndex('jobs_pending_due').on('jobs').columns(['kind', 'run_at']).where(sql.ref('status'), '=', 'pending').execute()
  // Leases that lapsed (claims on a poll, and failing those on their last attempt): few rows, at most a claim's
  // worth per process.
  await db.schema.createIndex('jobs_running_lease').on('jobs').column('lease_expires_at').where(sql.ref('status'), '=', 'running').execute()
  // Pruning done jobs by age.
  await db.schema.createIndex('jobs_done_finished').on('jobs').column('finished_at').where(sql.ref('status'), '=', 'done').execute()
  // 0017 (the webhooks feature) made the first of these; if exists, so this one does not depend on it.
  await db.schema.dropIndex('jobs_kind_due').ifExists().execute()
  await db.schema.dropIndex('jobs_lease').execute()
  await db.schema.dropIndex('jobs_finished').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('jobs_kind_due').on('jobs').columns(['kind', 'status', 'run_at']).execute()
  await db.schema.createIndex('jobs_lease').on('jobs').columns(['status', 'lease_expires_at']).execute()
  await db.schema.createIndex('jobs_finished').on('jobs').columns(['status', 'finished_at']).execute()
  for (const name of ['jobs_pending_due', 'jobs_running_lease', 'jobs_done_finished']) await db.schema.dropIndex(name).execute()
}
