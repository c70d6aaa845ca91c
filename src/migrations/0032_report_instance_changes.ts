import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 20 (reporting reads): each server keeps a report's details and the results of a search while no report has
// changed anywhere (reporting/reports/service.ts; platform/db/changes.ts). This trigger says `report_instances` on
// `finapi_changes` whenever a statement inserts, updates or deletes rows of the table (a new report belongs in a
// search's results), by finapi or by anyone's SQL, delivered when its transaction commits. SQLite needs nothing:
// `PRAGMA data_version` moves on another connection's commit.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE FUNCTION finapi_report_instances_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'report_instances');
      RETURN NULL;
    END $$`.execute(db)
  await sql`CREATE TRIGGER report_instances_changed AFTER INSERT OR UPDATE OR DELETE ON report_instances FOR EACH STATEMENT EXECUTE FUNCTION finapi_report_instances_changed()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`DROP TRIGGER report_instances_changed ON report_instances`.execute(db)
  await sql`DROP FUNCTION finapi_report_instances_changed()`.execute(db)
}
