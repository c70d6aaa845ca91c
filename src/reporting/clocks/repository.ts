// SQL of the sandbox organizations' reporting clocks (report_clocks): each moved organization's offset.
import type { Executor } from '../../platform/db/database.js'

export async function clockOffsets(db: Executor): Promise<Map<string, number>> {
  const rows = await db.selectFrom('report_clocks').selectAll().execute()
  return new Map(rows.map((r) => [r.organization_id, Number(r.offset_ms)]))
}

export async function clockOffset(db: Executor, organizationId: string): Promise<number> {
  const row = await db.selectFrom('report_clocks').select('offset_ms').where('organization_id', '=', organizationId).executeTakeFirst()
  return row ? Number(row.offset_ms) : 0
}

/** Sets an organization's offset if it is still `from` (two advances at once: one wins, the other is told). */
export async function moveClock(db: Executor, organizationId: string, from: number, to: number, now: string): Promise<boolean> {
  if (from === 0) {
    const inserted = await db
      .insertInto('report_clocks')
      .values({ organization_id: organizationId, offset_ms: String(to), updated_at: now })
      .onConflict((oc) => oc.column('organization_id').doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return true
  }
  const result = await db.updateTable('report_clocks').set({ offset_ms: String(to), updated_at: now }).where('organization_id', '=', organizationId).where('offset_ms', '=', String(from)).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Puts an organization back on the server's clock: its offset row goes. */
export async function removeClock(db: Executor, organizationId: string): Promise<void> {
  await db.deleteFrom('report_clocks').where('organization_id', '=', organizationId).execute()
}
