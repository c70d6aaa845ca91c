import { PostgresAdapter, sql, type Kysely } from 'kysely'

// The change signal's channels are now table names (platform/db/announced-writes.ts tells this process's own writes
// under their table's): the OAuth tables' trigger (0028) names the table it fires for instead of saying `oauth` for
// all three. Still only updates and deletes: a token not found is never remembered.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE OR REPLACE FUNCTION finapi_oauth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', TG_TABLE_NAME);
      RETURN NULL;
    END $$`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE OR REPLACE FUNCTION finapi_oauth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'oauth');
      RETURN NULL;
    END $$`.execute(db)
}
