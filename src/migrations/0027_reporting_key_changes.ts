import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 20 (signed reporting reads): each server remembers the reporting keys it has verified while no key has
// changed anywhere (applications/reporting-keys/service.ts; platform/db/changes.ts). On PostgreSQL every server
// LISTENs on `finapi_changes`; this trigger says `reporting_keys` there whenever a statement updates or deletes rows
// of the table, by finapi or by anyone's SQL, delivered when its transaction commits. (A new key needs no word: a key
// not found is never remembered.) SQLite needs nothing: `PRAGMA data_version` moves on another connection's commit.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE FUNCTION finapi_reporting_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'reporting_keys');
      RETURN NULL;
    END $$`.execute(db)
  await sql`CREATE TRIGGER reporting_keys_changed AFTER UPDATE OR DELETE ON reporting_keys FOR EACH STATEMENT EXECUTE FUNCTION finapi_reporting_keys_changed()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`DROP TRIGGER reporting_keys_changed ON reporting_keys`.execute(db)
  await sql`DROP FUNCTION finapi_reporting_keys_changed()`.execute(db)
}
