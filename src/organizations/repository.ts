// SQL for organizations. Takes the database handle or a transaction; the service owns the boundary.
import type { Executor } from '../platform/db/database.js'
import type { OrganizationsTable } from '../platform/db/schema.js'

export type OrganizationRow = OrganizationsTable

export function find(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Inserts the row; returns false when the id is taken (so a concurrent start creating the same id is no error). */
export async function insert(db: Executor, row: OrganizationRow): Promise<boolean> {
  const result = await db.insertInto('organizations').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}

export function list(db: Executor): Promise<OrganizationRow[]> {
  return db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute()
}

/** The organizations directly below any of these. */
export function children(db: Executor, parentIds: readonly string[]): Promise<OrganizationRow[]> {
  if (parentIds.length === 0) return Promise.resolve([])
  return db.selectFrom('organizations').selectAll().where('parent_id', 'in', parentIds).orderBy('id').execute()
}
