// SQL of the scheduler: each active subscription's next run (report_schedules, read beside the subscription it was
// computed from). Every change is a compare-and-set on what the caller read, so when several processes sweep at once
// exactly one moves each schedule; the others find it moved and skip.
import type { Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.js'
import type { ReportSchedulesTable, ReportSubscriptionsTable } from '../tables.js'

export type SubscriptionRow = Selectable<ReportSubscriptionsTable>
export type ScheduleRow = Selectable<ReportSchedulesTable>

/** Active subscriptions with no schedule yet, or whose schedule was computed from an older version of them. */
export function unsyncedSubscriptions(db: Executor, limit: number): Promise<(SubscriptionRow & { synced_at: string | null })[]> {
  return db
    .selectFrom('report_subscriptions as s')
    .leftJoin('report_schedules as r', (j) => j.onRef('r.organization_id', '=', 's.organization_id').onRef('r.report_name', '=', 's.report_name'))
    .selectAll('s')
    .select('r.subscription_updated_at as synced_at')
    .where('s.subscription_status', '=', 'ACTIVE')
    .where((eb) => eb.or([eb('r.report_name', 'is', null), eb('r.subscription_updated_at', '<>', eb.ref('s.updated_at'))]))
    .limit(limit)
    .execute()
}

/** Schedules whose subscription was deleted or made inactive. */
export function orphanedSchedules(db: Executor, limit: number): Promise<ScheduleRow[]> {
  return db
    .selectFrom('report_schedules as r')
    .leftJoin('report_subscriptions as s', (j) => j.onRef('s.organization_id', '=', 'r.organization_id').onRef('s.report_name', '=', 'r.report_name'))
    .selectAll('r')
    .where((eb) => eb.or([eb('s.report_name', 'is', null), eb('s.subscription_status', '<>', 'ACTIVE')]))
    .limit(limit)
    .execute()
}

/** Organizations with a schedule due by `now` (each organization's own time is checked by the caller). */
export async function dueOrganizations(db: Executor, now: string): Promise<string[]> {
  const rows = await db.selectFrom('report_schedules').select('organization_id').distinct().where('next_run_at', '<=', now).execute()
  return rows.map((r) => r.organization_id)
}

/** One organization's schedules due by `now`, oldest first, with the subscription they follow. */
export function dueSchedules(db: Executor, now: string, limit: number, organizationId: string): Promise<(SubscriptionRow & { next_run_at: string })[]> {
  return db
    .selectFrom('report_schedules as r')
    .innerJoin('report_subscriptions as s', (j) => j.onRef('s.organization_id', '=', 'r.organization_id').onRef('s.report_name', '=', 'r.report_name').onRef('s.updated_at', '=', 'r.subscription_updated_at'))
    .selectAll('s')
    .select('r.next_run_at')
    .where('r.organization_id', '=', organizationId)
    .where('r.next_run_at', '<=', now)
    .where('s.subscription_status', '=', 'ACTIVE')
    .orderBy('r.next_run_at')
    .limit(limit)
    .execute()
}

/** How many reports of each of `organizations` are queued or generating now. */
export async function reportsInFlight(db: Executor, organizations: readonly string[]): Promise<Map<string, number>> {
  if (organizations.length === 0) return new Map()
  const rows = await db
    .selectFrom('report_instances')
    .select((eb) => ['organization_id', eb.fn.countAll<string | number>().as('n')])
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .where('organization_id', 'in', organizations)
    .groupBy('organization_id')
    .execute()
  return new Map(rows.map((r) => [r.organization_id, Number(r.n)]))
}

export async function insertSchedule(db: Executor, row: ScheduleRow): Promise<boolean> {
  const result = await db
    .insertInto('report_schedules')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'report_name']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
}

/** Re-points a schedule at a changed subscription, if it still follows the version the caller read. */
export async function resyncSchedule(db: Executor, key: { organizationId: string; reportName: string }, from: string, to: { subscriptionUpdatedAt: string; nextRunAt: string; now: string }): Promise<boolean> {
  const result = await db
    .updateTable('report_schedules')
    .set({ subscription_updated_at: to.subscriptionUpdatedAt, next_run_at: to.nextRunAt, updated_at: to.now })
    .where('organization_id', '=', key.organizationId)
    .where('report_name', '=', key.reportName)
    .where('subscription_updated_at', '=', from)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Moves a schedule from the run it was due for to the next, if nobody moved it first. */
export async function advanceSchedule(db: Executor, key: { organizationId: string; reportName: string; subscriptionUpdatedAt: string }, from: string, to: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('report_schedules')
    .set({ next_run_at: to, updated_at: now })
    .where('organization_id', '=', key.organizationId)
    .where('report_name', '=', key.reportName)
    .where('subscription_updated_at', '=', key.subscriptionUpdatedAt)
    .where('next_run_at', '=', from)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deleteSchedule(db: Executor, row: ScheduleRow): Promise<boolean> {
  const result = await db
    .deleteFrom('report_schedules')
    .where('organization_id', '=', row.organization_id)
    .where('report_name', '=', row.report_name)
    .where('subscription_updated_at', '=', row.subscription_updated_at)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
