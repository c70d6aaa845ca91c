// The jobs table's indexes each hold the jobs of one status (migration 0026), and a database uses such an index only
// for a query whose WHERE implies the index's condition. Here, through each database's own EXPLAIN (SQLite's
// EXPLAIN QUERY PLAN; PostgreSQL's EXPLAIN with sequential scans off, the table being tiny), that the statements the
// repository sends for claims, lease rescues and pruning use them: a query that stopped matching its index (its
// status bound as a parameter instead of written as a literal, a condition dropped or changed) fails here.
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../src/platform/db/database.js'
import type { Database } from '../src/platform/db/schema.js'
import { claimJobs, completeJobs, deleteDoneJobs, failAbandoned, insertJob } from '../src/platform/jobs/repository.js'
import { openMigratedTestDatabase, TEST_DIALECT } from './support/database.js'

let opened: Awaited<ReturnType<typeof openMigratedTestDatabase>>
let db: Db
beforeAll(async () => {
  opened = await openMigratedTestDatabase()
  db = opened.db
})
afterAll(async () => {
  await opened.close()
})

/** A handle on the test's database that keeps each statement it sends, compiled, with its parameters. */
function recording(): { kysely: Kysely<Database>; statements: CompiledQuery[] } {
  const statements: CompiledQuery[] = []
  const kysely = db.kysely.withPlugin({
    transformQuery: ({ node, queryId }) => {
      statements.push(db.kysely.getExecutor().compileQuery(node, queryId))
      return node
    },
    transformResult: async ({ result }) => result,
  })
  return { kysely, statements }
}

/**
 * The database's plan for a statement as sent, made for no particular values (each parameter NULL; on PostgreSQL
 * its generic plan), one line per step. Either database can match a status bound as a parameter to an index's
 * condition for one execution's values (SQLite by preparing the statement again for each new value, PostgreSQL in a
 * plan made for those values); a plan that holds for any values shows the condition is in the statement's text.
 */
async function plan(statement: CompiledQuery): Promise<string> {
  const nulls = statement.parameters.map(() => null)
  if (db.dialect === 'sqlite') {
    const { rows } = await db.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, nulls))
    return rows.map((r) => r.detail).join('\n')
  }
  return db.kysely.transaction().execute(async (trx) => {
    // A handful of rows and no statistics: without this, a sequential scan is the cheaper plan and no index is used.
    await sql`set local enable_seqscan = off`.execute(trx)
    await sql`set local plan_cache_mode = force_generic_plan`.execute(trx)
    await trx.executeQuery(CompiledQuery.raw(`prepare jobs_plan as ${statement.sql}`))
    try {
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain execute jobs_plan(${nulls.map(() => 'null').join(', ')})`))
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    } finally {
      await trx.executeQuery(CompiledQuery.raw('deallocate jobs_plan'))
    }
  })
}

/** A plan that sorts rows itself rather than reading them in the index's order. */
const SORTS = TEST_DIALECT === 'sqlite' ? /TEMP B-TREE/ : /\bSort\b/

const T0 = '2026-11-26T10:00:00.000Z'
const LATER = '2026-11-26T10:01:00.000Z'

describe(`the jobs table's indexes on ${TEST_DIALECT}`, () => {
  it('are one per status, each holding only the jobs of its status', async () => {
    const definitions =
      db.dialect === 'sqlite'
        ? (await sql<{ name: string; def: string }>`select name, sql as def from sqlite_master where type = 'index' and tbl_name = 'jobs' and sql is not null order by name`.execute(db.kysely)).rows
        : (await sql<{ name: string; def: string }>`select indexname as name, indexdef as def from pg_indexes where tablename = 'jobs' and indexname not in ('jobs_pkey', 'jobs_idempotency_key_key') order by indexname`.execute(db.kysely)).rows
    expect(definitions.map((d) => d.name)).toEqual(['jobs_done_finished', 'jobs_pending_due', 'jobs_running_lease'])
    const condition = (name: string) => definitions.find((d) => d.name === name)!.def.replace(/["()]|::text/g, '')
    expect(condition('jobs_pending_due')).toMatch(/kind, run_at where status = 'pending'$/i)
    expect(condition('jobs_running_lease')).toMatch(/lease_expires_at where status = 'running'$/i)
    expect(condition('jobs_done_finished')).toMatch(/finished_at where status = 'done'$/i)
  })

  it("serve the claims, the lease rescues and the pruning: each statement's plan reads its status's index", async () => {
    for (let i = 0; i < 3; i++) await insertJob(db.kysely, { kind: 'k', payload: '{}', runAt: T0, maxAttempts: 3, idempotencyKey: null, now: T0 })

    // A poll's claim: first jobs whose lease lapsed, then pending ones, each in its index's order up to the limit.
    const claim = recording()
    const claimed = await claimJobs({ kysely: claim.kysely, dialect: db.dialect }, { kind: 'k', owner: 'w', now: T0, leaseExpiresAt: LATER, limit: 2, lapsed: true })
    expect(claimed).toHaveLength(2)
    const [lapsedClaim, pendingClaim] = claim.statements
    expect(claim.statements).toHaveLength(2)
    const pendingPlan = await plan(pendingClaim!)
    expect(pendingPlan, pendingClaim!.sql).toContain('jobs_pending_due')
    expect(pendingPlan, pendingClaim!.sql).not.toMatch(SORTS)
    const lapsedPlan = await plan(lapsedClaim!)
    expect(lapsedPlan, lapsedClaim!.sql).toContain('jobs_running_lease')
    expect(lapsedPlan, lapsedClaim!.sql).not.toMatch(SORTS)

    // Failing for good the jobs whose lease lapsed on their last attempt.
    const rescue = recording()
    expect(await failAbandoned(rescue.kysely, LATER)).toBe(0)
    expect(await plan(rescue.statements[0]!), rescue.statements[0]!.sql).toContain('jobs_running_lease')

    // Completion finds its jobs by id; pruning finds done jobs by age.
    expect(await completeJobs(db.kysely, 'w', claimed.map((j) => ({ id: j.id, attempts: j.attempts })), T0)).toEqual(new Set(claimed.map((j) => j.id)))
    const prune = recording()
    expect(await deleteDoneJobs(prune.kysely, LATER)).toBe(2)
    expect(await plan(prune.statements[0]!), prune.statements[0]!.sql).toContain('jobs_done_finished')
  })
})
