// SQL for report instances and their events. Every read a client can cause names the organization, so another
// tenant's report answers exactly as an unknown one. State changes are conditional updates (from the states they
// may leave, and for a running report only by the run that holds it), so two processes can never both move one.
import type { CompiledQuery, Selectable } from 'kysely'
import { compiledPerShape } from '../../platform/db/compiled.js'
import type { Executor } from '../../platform/db/database.js'
import type { ReportEventsTable, ReportInstancesTable, ReportStatus } from '../tables.js'

export type InstanceRow = Selectable<ReportInstancesTable>
export type NewInstance = Omit<InstanceRow, 'runs' | 'run_token' | 'row_count' | 'content_bytes' | 'stored_bytes' | 'sha256' | 'blob_key' | 'error' | 'started_at' | 'completed_at'>

export const FINISHED: readonly ReportStatus[] = ['COMPLETED', 'NO_DATA', 'ERROR']

/** Inserts unless the instance's key (subscription and window, or one-time request) already exists. */
export async function insertInstance(db: Executor, row: NewInstance): Promise<boolean> {
  const result = await db
    .insertInto('report_instances')
    .values({ ...row, runs: 0 })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
}

export function getInstance(db: Executor, id: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('report_instances').selectAll().where('id', '=', id).executeTakeFirst()
}

/** One organization's instance: another organization's id answers as none. */
// A report's details are polled by clients waiting for it: the query is compiled once per handle and only re-bound.
const instanceQueries = new WeakMap<Executor, CompiledQuery<InstanceRow>>()

export async function findInstance(db: Executor, organizationId: string, id: string): Promise<InstanceRow | undefined> {
  let compiled = instanceQueries.get(db)
  if (!compiled) {
    compiled = db.selectFrom('report_instances').selectAll().where('organization_id', '=', '').where('id', '=', '').compile()
    instanceQueries.set(db, compiled)
  }
  const { rows } = await db.executeQuery({ ...compiled, parameters: [organizationId, id] })
  return rows[0] as InstanceRow | undefined
}

export function findByRequest(db: Executor, organizationId: string, requestHash: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('report_instances').selectAll().where('organization_id', '=', organizationId).where('request_hash', '=', requestHash).executeTakeFirst()
}

export interface WindowKey {
  organizationId: string
  subscriptionName: string
  windowStart: string
  windowEnd: string
}

/** A scheduled window's PENDING instance becomes QUEUED with what it reports copied in; its id, or undefined when there was none. */
export async function queuePending(db: Executor, key: WindowKey, content: Partial<InstanceRow>, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('report_instances')
    .set({ ...content, status: 'QUEUED', queued_at: now, updated_at: now })
    .where('organization_id', '=', key.organizationId)
    .where('subscription_name', '=', key.subscriptionName)
    .where('window_start', '=', key.windowStart)
    .where('window_end', '=', key.windowEnd)
    .where('status', '=', 'PENDING')
    .returning('id')
    .executeTakeFirst()
  return row?.id
}

/** A subscription's PENDING instances (its open window), when the subscription changed or went. */
export async function deletePending(db: Executor, organizationId: string, subscriptionName: string): Promise<number> {
  const result = await db.deleteFrom('report_instances').where('organization_id', '=', organizationId).where('subscription_name', '=', subscriptionName).where('status', '=', 'PENDING').executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** One-time instances still PENDING whose window has closed by `now` (of one organization, or all). */
export function closedPending(db: Executor, now: string, organizationId?: string): Promise<InstanceRow[]> {
  return db
    .selectFrom('report_instances')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('window_end', '<=', now)
    .where('subscription_name', 'is', null)
    .$if(organizationId !== undefined, (q) => q.where('organization_id', '=', organizationId!))
    .orderBy('window_end')
    .limit(1000)
    .execute()
}

export async function queueOneTime(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db.updateTable('report_instances').set({ status: 'QUEUED', queued_at: now, updated_at: now }).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Starts a run: a QUEUED instance, or a RUNNING one whose run died (the caller holds the job, so it is alone). */
export function startRun(db: Executor, id: string, token: string, now: string): Promise<InstanceRow | undefined> {
  return db
    .updateTable('report_instances')
    .set((eb) => ({ status: 'RUNNING', run_token: token, started_at: now, runs: eb('runs', '+', 1), error: null, updated_at: now }))
    .where('id', '=', id)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .returningAll()
    .executeTakeFirst()
}

export interface RunResult {
  status: 'COMPLETED' | 'NO_DATA' | 'ERROR'
  rowCount: number | null
  contentBytes: number | null
  storedBytes: number | null
  sha256: string | null
  blobKey: string | null
  error: string | null
}

/** Records the end of a run, only if `token`'s run still holds the instance. */
export async function finishRun(db: Executor, id: string, token: string, result: RunResult, now: string): Promise<boolean> {
  const res = await db
    .updateTable('report_instances')
    .set({
      status: result.status,
      completed_at: now,
      row_count: result.rowCount,
      content_bytes: result.contentBytes,
      stored_bytes: result.storedBytes,
      sha256: result.sha256,
      blob_key: result.blobKey,
      error: result.error,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'RUNNING')
    .where('run_token', '=', token)
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** A failed run that will be tried again: QUEUED, with the error kept. */
export async function requeueRun(db: Executor, id: string, token: string, error: string, now: string): Promise<boolean> {
  const res = await db.updateTable('report_instances').set({ status: 'QUEUED', error, updated_at: now }).where('id', '=', id).where('status', '=', 'RUNNING').where('run_token', '=', token).executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** An operator's retry: a finished instance is QUEUED again (its file stays until the new run replaces it). */
export async function requeueFinished(db: Executor, id: string, now: string): Promise<boolean> {
  const res = await db.updateTable('report_instances').set({ status: 'QUEUED', queued_at: now, updated_at: now }).where('id', '=', id).where('status', 'in', [...FINISHED]).executeTakeFirst()
  return res.numUpdatedRows > 0n
}

export interface SearchCriteria {
  organizationId: string
  by: 'reportTimeFrame' | 'executedTime'
  from: string
  to: string
  reportMimeType?: string
  reportFrequency?: string
  reportName?: string
  reportDefinitionName?: string
  status?: ReportStatus
  limit: number
}

/** Which optional filters a search names: its SQL is compiled once per combination (two ranges × 32). */
type SearchShape = Pick<SearchCriteria, 'by'> & Record<(typeof SEARCH_FILTERS)[number][0], boolean>

const SEARCH_FILTERS = [
  ['reportMimeType', 'report_mime_type'],
  ['reportFrequency', 'report_frequency'],
  ['reportName', 'report_name'],
  ['reportDefinitionName', 'report_definition_name'],
  ['status', 'status'],
] as const

const searchQuery = compiledPerShape(
  (db, shape: SearchShape) => {
    let q = db.selectFrom('report_instances').selectAll().where('organization_id', '=', '')
    // The report's window overlaps the half-open range; or it was queued within the range (inclusive).
    q = shape.by === 'reportTimeFrame' ? q.where('window_start', '<', '').where('window_end', '>', '') : q.where('queued_at', '>=', '').where('queued_at', '<=', '')
    for (const [field, column] of SEARCH_FILTERS) if (shape[field]) q = q.where(column, '=', '')
    return q.orderBy('window_end').orderBy('report_name').orderBy('id').limit(0)
  },
  (shape) => `${shape.by}:${SEARCH_FILTERS.map(([field]) => (shape[field] ? 1 : 0)).join('')}`,
)

export function searchInstances(db: Executor, c: SearchCriteria): Promise<InstanceRow[]> {
  // Bound in the order the builder above adds its conditions.
  const parameters: unknown[] = [c.organizationId, ...(c.by === 'reportTimeFrame' ? [c.to, c.from] : [c.from, c.to])]
  const shape = { by: c.by } as SearchShape
  for (const [field] of SEARCH_FILTERS) {
    shape[field] = c[field] !== undefined
    if (c[field] !== undefined) parameters.push(c[field])
  }
  parameters.push(c.limit)
  return searchQuery(db, shape, parameters)
}

/** An organization's instances of one name whose window ends in (from, to]. */
export function instancesEnding(db: Executor, organizationId: string, reportName: string, from: string, to: string): Promise<InstanceRow[]> {
  return db
    .selectFrom('report_instances')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('report_name', '=', reportName)
    .where('window_end', '>', from)
    .where('window_end', '<=', to)
    .orderBy('window_end')
    .orderBy('created_at')
    .execute()
}

export function listInstances(db: Executor, filter: { organizationId?: string; status?: ReportStatus; limit: number }): Promise<InstanceRow[]> {
  return db
    .selectFrom('report_instances')
    .selectAll()
    .$if(filter.organizationId !== undefined, (q) => q.where('organization_id', '=', filter.organizationId!))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .orderBy('window_end', 'desc')
    .orderBy('created_at', 'desc')
    .limit(filter.limit)
    .execute()
}

export async function countByStatus(db: Executor): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('report_instances')
    .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('status')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
}

/** Finished instances that ended before `before`, oldest first, for retention. */
export function expiredInstances(db: Executor, before: string, limit: number): Promise<Pick<InstanceRow, 'id' | 'blob_key'>[]> {
  return db.selectFrom('report_instances').select(['id', 'blob_key']).where('status', 'in', [...FINISHED]).where('completed_at', '<', before).orderBy('completed_at').limit(limit).execute()
}

export async function deleteInstances(db: Executor, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0
  await db.deleteFrom('report_events').where('instance_id', 'in', ids).execute()
  const result = await db.deleteFrom('report_instances').where('id', 'in', ids).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function insertEvent(db: Executor, event: Selectable<ReportEventsTable>): Promise<void> {
  await db.insertInto('report_events').values(event).execute()
}

export function eventsOf(db: Executor, instanceId: string): Promise<Selectable<ReportEventsTable>[]> {
  return db.selectFrom('report_events').selectAll().where('instance_id', '=', instanceId).orderBy('run').execute()
}
