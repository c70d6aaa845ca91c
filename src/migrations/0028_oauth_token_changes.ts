import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 20 (bearer reporting reads): each server remembers the active access tokens it has read while nothing that
// decides a token's state has changed anywhere (oauth/token/service.ts; platform/db/changes.ts). A token stops
// working with its grant or its client, so a statement that updates or deletes rows of any of the three tables says
// `oauth` on `finapi_changes` as it commits, by finapi or by anyone's SQL. (New rows need no word: a token not found
// is never remembered.) The client's application has its own channel (0029). SQLite needs nothing: `PRAGMA
// data_version` moves on another connection's commit.
const TABLES = ['oauth_tokens', 'oauth_grants', 'oauth_clients'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (as 0006 does).
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`CREATE FUNCTION finapi_oauth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('finapi_changes', 'oauth');
      RETURN NULL;
    END $$`.execute(db)
  for (const table of TABLES) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_changed`)} AFTER UPDATE OR DELETE ON ${sql.table(table)} FOR EACH STATEMENT EXECUTE FUNCTION finapi_oauth_changed()`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
  for (const table of TABLES) await sql`DROP TRIGGER ${sql.id(`${table}_changed`)} ON ${sql.table(table)}`.execute(db)
  await sql`DROP FUNCTION finapi_oauth_changed()`.execute(db)
}
