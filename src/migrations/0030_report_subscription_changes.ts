import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 20 (reporting reads): each server keeps an organization's subscription list, rendered once, while no
// subscription has changed anywhere (reporting/report-subscriptions/service.ts; platform/db/changes.ts). This trigger
// says `report_subscriptions` on `finapi_changes` whenever a statement inserts, updates or deletes rows of the table
// (a new subscription belongs in the list too), by finapi or by anyone's SQL, delivered when its transaction commits.
// SQLite needs nothing: `PRAGMA data_version` moves on another connection's commit.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE FUNCTION finapi_report_subscriptions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'report_subscriptions');
      RETURN NULL;
    END $$`.execute(db)
  await sql`CREATE TRIGGER report_subscriptions_changed AFTER INSERT OR UPDATE OR DELETE ON report_subscriptions FOR EACH STATEMENT EXECUTE FUNCTION finapi_report_subscriptions_changed()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`DROP TRIGGER report_subscriptions_changed ON report_subscriptions`.execute(db)
  await sql`DROP FUNCTION finapi_report_subscriptions_changed()`.execute(db)
}
