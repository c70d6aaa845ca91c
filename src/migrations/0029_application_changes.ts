import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 20 (bearer reporting reads): an OAuth access token stops working with its client's application, so the
// servers' token memories (oauth/token/service.ts) hear of every update or delete of applications: this trigger says
// `applications` on `finapi_changes` as such a statement commits, by finapi or by anyone's SQL. SQLite needs
// nothing: `PRAGMA data_version` moves on another connection's commit.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE FUNCTION finapi_applications_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'applications');
      RETURN NULL;
    END $$`.execute(db)
  await sql`CREATE TRIGGER applications_changed AFTER UPDATE OR DELETE ON applications FOR EACH STATEMENT EXECUTE FUNCTION finapi_applications_changed()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`DROP TRIGGER applications_changed ON applications`.execute(db)
  await sql`DROP FUNCTION finapi_applications_changed()`.execute(db)
}
