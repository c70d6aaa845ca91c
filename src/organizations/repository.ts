// SQL for organizations. Takes the database handle or a transaction; the service owns the boundary.
import { sql } from 'kysely'
import type { Executor } from '../platform/db/database.js'
import type { OrganizationsTable } from './tables.js'

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

/** The organization and its ancestors, nearest first, in one statement (at most `maxDepth` levels up). */
export async function lineage(db: Executor, id: string, maxDepth: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with recursive chain(id, parent_id, depth) as (
      select id, parent_id, 0 from organizations where id = ${id}
      union all
      select o.id, o.parent_id, c.depth + 1 from organizations o join chain c on o.id = c.parent_id where c.depth < ${maxDepth}
    )
    select id from chain order by depth`.execute(db)
  return rows.map((r) => r.id)
}

/** The organizations directly below any of these. */
export function children(db: Executor, parentIds: readonly string[]): Promise<OrganizationRow[]> {
  if (parentIds.length === 0) return Promise.resolve([])
  return db.selectFrom('organizations').selectAll().where('parent_id', 'in', parentIds).orderBy('id').execute()
}
