// The jobs table's SQL. Claiming is one UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING: on PostgreSQL the
// inner select takes FOR UPDATE SKIP LOCKED, so concurrent workers each get different rows without waiting; on
// SQLite there is one writer at a time, so the same statement is already exclusive. Completion and failure only
// apply while the worker still holds the claim (same owner and attempt), so a worker whose lease lapsed and whose
// job was taken over cannot overwrite the new attempt's result.
//
// The indexes (0026) each hold the jobs of one status, and a database uses one only for a query whose WHERE implies
// its condition: the queries that need them name the status as a literal (`status = 'pending'`), not a bound
// parameter, which SQLite matches only by preparing the statement again each time the parameter is bound (each
// execution) and PostgreSQL only in a plan made for one execution's values (test/jobs-indexes.test.ts checks).
import { randomUUID } from 'node:crypto'
import { sql, type ExpressionBuilder, type Selectable } from 'kysely'
import type { Db } from '../db/database.js'
import type { Database, JobsTable } from '../db/schema.js'
import type { Executor } from './types.js'

export type JobRow = Selectable<JobsTable>

/** `status = '<status>'` with the status as a literal, so the index of that status's jobs serves the query. */
function statusIs(status: 'pending' | 'running' | 'done') {
  return (eb: ExpressionBuilder<Database, 'jobs'>) => eb('status', '=', sql.lit(status))
}

export async function insertJob(
  executor: Executor,
  job: { kind: string; payload: string; runAt: string; maxAttempts: number; idempotencyKey: string | null; now: string },
): Promise<{ id: string; created: boolean }> {
  const id = randomUUID()
  const inserted = await executor
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      payload: job.payload,
      status: 'pending',
      run_at: job.runAt,
      attempts: 0,
      max_attempts: job.maxAttempts,
      idempotency_key: job.idempotencyKey,
      created_at: job.now,
      updated_at: job.now,
    })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst()
  if (inserted) return { id: inserted.id, created: true }
  const existing = await executor.selectFrom('jobs').select('id').where('idempotency_key', '=', job.idempotencyKey).executeTakeFirstOrThrow()
  return { id: existing.id, created: false }
}

/**
 * Claims up to `limit` due jobs of `kind` for `owner` until `leaseExpiresAt`, counting the attempt: pending jobs in
 * run_at order (an index range, stopping at `limit`), and with `lapsed` also running jobs whose lease lapsed (their
 * worker died), which are rare and looked for on polls only. `id`: that job only (an operator's command).
 */
export async function claimJobs(
  db: Pick<Db, 'kysely' | 'dialect'>,
  claim: { kind: string; owner: string; now: string; leaseExpiresAt: string; limit: number; lapsed?: boolean; id?: string },
): Promise<JobRow[]> {
  const { now } = claim
  const take = (due: (w: ExpressionBuilder<Database, 'jobs'>) => ReturnType<ExpressionBuilder<Database, 'jobs'>['and']>, order: 'run_at' | 'lease_expires_at', limit: number) =>
    db.kysely
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        lease_owner: claim.owner,
        lease_expires_at: claim.leaseExpiresAt,
        attempts: eb('attempts', '+', 1),
        updated_at: now,
      }))
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('kind', '=', claim.kind)
          .$if(claim.id !== undefined, (q) => q.where('id', '=', claim.id!))
          .where(due)
          .where((w) => w('attempts', '<', w.ref('max_attempts')))
          .orderBy(order)
          .limit(limit)
          .$if(db.dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute()
  const pendingDue = (w: ExpressionBuilder<Database, 'jobs'>) => w.and([statusIs('pending')(w), w('run_at', '<=', now)])
  // The owner died or hung past its lease: the job is up for grabs again.
  const lapsedDue = (w: ExpressionBuilder<Database, 'jobs'>) => w.and([statusIs('running')(w), w('lease_expires_at', '<=', now)])
  const lapsed = claim.lapsed ? await take(lapsedDue, 'lease_expires_at', claim.limit) : []
  if (lapsed.length >= claim.limit) return lapsed
  return [...lapsed, ...(await take(pendingDue, 'run_at', claim.limit - lapsed.length))]
}

/** Running jobs whose lease lapsed on their last allowed attempt are failed for good (the worker never reported). */
export async function failAbandoned(executor: Executor, now: string): Promise<number> {
  const res = await executor
    .updateTable('jobs')
    .set({ status: 'failed', last_error: 'lease expired: the worker stopped before finishing', lease_owner: null, lease_expires_at: null, finished_at: now, updated_at: now })
    .where(statusIs('running'))
    .where('lease_expires_at', '<=', now)
    .where((w) => w('attempts', '>=', w.ref('max_attempts')))
    .executeTakeFirst()
  return Number(res.numUpdatedRows)
}

interface Held {
  id: string
  owner: string
  attempts: number
}

/** Only while the claim is still this worker's: still running, the same owner and the same attempt. */
function heldBy(held: Held) {
  return (eb: ExpressionBuilder<Database, 'jobs'>) =>
    eb.and([eb('id', '=', held.id), eb('status', '=', 'running'), eb('lease_owner', '=', held.owner), eb('attempts', '=', held.attempts)])
}

/** Moves the lease's end while the claim is still this worker's. */
export async function renewJob(executor: Executor, held: Held, leaseExpiresAt: string, now: string): Promise<boolean> {
  const res = await executor.updateTable('jobs').set({ lease_expires_at: leaseExpiresAt, updated_at: now }).where(heldBy(held)).executeTakeFirst()
  return res.numUpdatedRows > 0n
}

export async function completeJob(executor: Executor, held: Held, now: string): Promise<boolean> {
  const res = await executor
    .updateTable('jobs')
    .set({ status: 'done', lease_owner: null, lease_expires_at: null, last_error: null, finished_at: now, updated_at: now })
    .where(heldBy(held))
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** completeJob for many jobs of one owner in one statement; returns the ids it completed (those still held). */
export async function completeJobs(executor: Executor, owner: string, held: readonly Omit<Held, 'owner'>[], now: string): Promise<Set<string>> {
  if (held.length === 0) return new Set()
  const pairs = sql.join(held.map((h) => sql`(${h.id}, cast(${h.attempts} as integer))`))
  const { rows } = await sql<{ id: string }>`
    update jobs set status = 'done', lease_owner = null, lease_expires_at = null, last_error = null, finished_at = ${now}, updated_at = ${now}
    where status = 'running' and lease_owner = ${owner} and (id, attempts) in (${pairs})
    returning id`.execute(executor)
  return new Set(rows.map((r) => r.id))
}

/** Records a failed attempt: retried at `retryAt`, or failed for good when no attempt is left. */
export async function failJob(executor: Executor, held: Held, failure: { error: string; retryAt: string | null; now: string }): Promise<boolean> {
  const res = await executor
    .updateTable('jobs')
    .set(
      failure.retryAt === null
        ? { status: 'failed', last_error: failure.error, lease_owner: null, lease_expires_at: null, finished_at: failure.now, updated_at: failure.now }
        : { status: 'pending', last_error: failure.error, lease_owner: null, lease_expires_at: null, run_at: failure.retryAt, updated_at: failure.now },
    )
    .where(heldBy(held))
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** Gives a claimed job back untried: pending again at `runAt`, and the claim's attempt not counted. */
export async function deferJob(executor: Executor, held: Held, runAt: string, now: string): Promise<boolean> {
  const res = await executor
    .updateTable('jobs')
    .set((eb) => ({ status: 'pending', attempts: eb('attempts', '-', 1), lease_owner: null, lease_expires_at: null, run_at: runAt, updated_at: now }))
    .where(heldBy(held))
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

export function findJob(executor: Executor, id: string): Promise<JobRow | undefined> {
  return executor.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Deletes done jobs finished before `before`; failed ones stay for inspection. */
export async function deleteDoneJobs(executor: Executor, before: string): Promise<number> {
  const res = await executor.deleteFrom('jobs').where(statusIs('done')).where('finished_at', '<', before).executeTakeFirst()
  return Number(res.numDeletedRows)
}
