// SQL for console sessions. The service owns the rules; this only reads and writes rows.
import type { Executor } from '../../platform/db/database.js'
import type { ConsoleSessionsTable } from '../tables.js'

export type SessionRow = ConsoleSessionsTable

export async function insert(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute()
}

/** A session still usable at `now`: not revoked, neither idle nor absolute expiry passed. */
export function findLive(db: Executor, tokenHash: string, now: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('console_sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('idle_expires_at', '>', now)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

export async function touch(db: Executor, tokenHash: string, lastSeenAt: string, idleExpiresAt: string): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: lastSeenAt, idle_expires_at: idleExpiresAt }).where('token_hash', '=', tokenHash).execute()
}

export async function setActing(db: Executor, tokenHash: string, organizationId: string): Promise<void> {
  await db.updateTable('console_sessions').set({ acting_organization_id: organizationId }).where('token_hash', '=', tokenHash).execute()
}

export async function revoke(db: Executor, tokenHash: string, now: string): Promise<void> {
  await db.updateTable('console_sessions').set({ revoked_at: now }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute()
}

/** Sessions that can never be used again: revoked, idle too long, or past their absolute expiry. */
export async function deleteDead(db: Executor, now: string): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('revoked_at', 'is not', null), eb('idle_expires_at', '<=', now), eb('expires_at', '<=', now)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
