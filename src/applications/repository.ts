// SQL for application keys. Takes the database handle or a transaction; the service owns the boundary.
import type { Executor } from '../platform/db/database.js'
import type { ApplicationRow, NewApplicationRow } from './tables.js'

export type ApplicationRowLike = Pick<ApplicationRow, 'id' | 'name' | 'key_prefix' | 'status' | 'created_at' | 'revoked_at'>

export function findByKeyHash(db: Executor, keyHash: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('key_hash', '=', keyHash).executeTakeFirst()
}

export async function insert(db: Executor, row: NewApplicationRow): Promise<void> {
  await db.insertInto('applications').values(row).execute()
}

/** Inserts or replaces the row with this id (used for the sandbox key, whose value comes from config). */
export async function upsert(db: Executor, row: NewApplicationRow): Promise<void> {
  await db
    .insertInto('applications')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        key_hash: row.key_hash,
        key_prefix: row.key_prefix,
        name: row.name,
        status: row.status,
        revoked_at: null,
      }),
    )
    .execute()
}

export function list(db: Executor): Promise<ApplicationRow[]> {
  return db.selectFrom('applications').selectAll().orderBy('created_at').orderBy('id').execute()
}

/** Returns the number of rows changed: 0 when the id is unknown or already revoked. */
export async function revoke(db: Executor, id: string, at: string): Promise<number> {
  const result = await db
    .updateTable('applications')
    .set({ status: 'revoked', revoked_at: at })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
