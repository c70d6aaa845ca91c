// Report subscription rows. Every statement names the organization: a subscription is only ever read, changed or
// deleted through the organization that owns it.
import { compiledOnce } from '../../platform/db/compiled.js'
import type { Executor } from '../../platform/db/database.js'
import type { ReportSubscriptionsTable } from '../tables.js'

export type SubscriptionRow = ReportSubscriptionsTable

export function find(db: Executor, organizationId: string, reportName: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('report_subscriptions').selectAll().where('organization_id', '=', organizationId).where('report_name', '=', reportName).executeTakeFirst()
}

// Clients poll the list: compiled once per handle, only re-bound.
const listQuery = compiledOnce((db) => db.selectFrom('report_subscriptions').selectAll().where('organization_id', '=', '').orderBy('report_name'))

export function list(db: Executor, organizationId: string): Promise<SubscriptionRow[]> {
  return listQuery(db, [organizationId])
}

/** How many subscriptions the organization has, active or not. */
export async function count(db: Executor, organizationId: string): Promise<number> {
  const row = await db.selectFrom('report_subscriptions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Inserts, or replaces the row of the same (organization, reportName), keeping its created_at. */
export async function upsert(db: Executor, row: SubscriptionRow): Promise<void> {
  const { organization_id: _o, report_name: _n, created_at: _c, ...changes } = row
  await db
    .insertInto('report_subscriptions')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'report_name']).doUpdateSet(changes))
    .execute()
}

export async function remove(db: Executor, organizationId: string, reportName: string): Promise<boolean> {
  const result = await db.deleteFrom('report_subscriptions').where('organization_id', '=', organizationId).where('report_name', '=', reportName).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
