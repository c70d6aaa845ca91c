// SQL of an organization's sandbox reset: every reporting row the organization made (subscriptions and their
// schedules, reports and their events, its moved clock) removed, in the caller's transaction.
import type { Executor } from '../../platform/db/database.js'

export interface Removed {
  subscriptions: number
  reports: number
  /** Report files to delete once the rows are gone. */
  blobKeys: string[]
  /** Whether its clock had been moved. */
  clock: boolean
}

export async function removeOrganizationData(db: Executor, organizationId: string): Promise<Removed> {
  const files = await db.selectFrom('report_instances').select('blob_key').where('organization_id', '=', organizationId).where('blob_key', 'is not', null).execute()
  await db.deleteFrom('report_events').where('organization_id', '=', organizationId).execute()
  const reports = await db.deleteFrom('report_instances').where('organization_id', '=', organizationId).executeTakeFirst()
  await db.deleteFrom('report_schedules').where('organization_id', '=', organizationId).execute()
  const subscriptions = await db.deleteFrom('report_subscriptions').where('organization_id', '=', organizationId).executeTakeFirst()
  const clock = await db.deleteFrom('report_clocks').where('organization_id', '=', organizationId).executeTakeFirst()
  return {
    subscriptions: Number(subscriptions.numDeletedRows),
    reports: Number(reports.numDeletedRows),
    blobKeys: files.map((f) => f.blob_key!),
    clock: clock.numDeletedRows > 0n,
  }
}
