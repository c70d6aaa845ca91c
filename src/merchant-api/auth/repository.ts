// SQL of reporting authentication: the JWT ids seen. Takes the database handle or a transaction.
import type { Executor } from '../../platform/db/database.js'

/**
 * Records a JWT id; false when it is recorded already and not expired. One statement on both databases, so two
 * processes (or two requests) presenting the same token at once cannot both succeed: the primary key makes the
 * second insert a conflict, which only takes over a row whose time is up (one housekeeping has not deleted yet).
 */
export async function recordJwtId(db: Executor, idHash: string, expiresAt: string, now: string): Promise<boolean> {
  const result = await db
    .insertInto('reporting_jwt_ids')
    .values({ id_hash: idHash, expires_at: expiresAt })
    .onConflict((oc) => oc.column('id_hash').doUpdateSet({ expires_at: expiresAt }).where('reporting_jwt_ids.expires_at', '<=', now))
    .executeTakeFirst()
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}

/** Housekeeping: ids whose token can no longer be accepted anyway. */
export async function deleteExpiredJwtIds(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('reporting_jwt_ids').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
