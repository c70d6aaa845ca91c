import { PostgresAdapter, sql, type Kysely } from 'kysely'

// Issue 24: the request log's row costs fewer B-trees, so that writing it takes less of the cores the API shares.
// Its key is the database's own integer (SQLite's rowid, a PostgreSQL identity): the table itself is appended to in
// the order calls were written, the text id and its unique index are gone, and pruning walks the oldest rows by that
// key (repository.ts), so the index of times is gone too. A reporting call's row is now three B-tree inserts (the
// table, its organization's entry, its correlation id's) instead of five, a banking call's two instead of four: 3.5–4.0
// against 5.0 µs of CPU a row in a script of better-sqlite3 inserts (docs/benchmarks.md). Rows are copied over in
// their old order (time, then id), so their new keys keep it.
const COLUMNS = ['at', 'organization_id', 'method', 'path', 'status', 'duration_us', 'correlation_id', 'scheme', 'key_id'] as const

async function createTable(db: Kysely<unknown>, name: string, id: 'integer' | 'text'): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable(name)
    .addColumn('id', id === 'text' ? 'text' : postgres ? 'bigint' : 'integer', (c) => {
      const key = c.primaryKey()
      return id === 'integer' && postgres ? key.generatedAlwaysAsIdentity() : key
    })
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_us', 'integer', (c) => c.notNull())
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .execute()
}

async function createIndexes(db: Kysely<unknown>, withAge: boolean): Promise<void> {
  await db.schema.createIndex('request_log_organization').on('request_log').columns(['organization_id', 'at', 'id']).where(sql.ref('organization_id'), 'is not', null).execute()
  await db.schema.createIndex('request_log_correlation').on('request_log').column('correlation_id').execute()
  if (withAge) await db.schema.createIndex('request_log_age').on('request_log').column('at').execute()
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createTable(db, 'request_log_next', 'integer')
  const columns = sql.join(COLUMNS.map((c) => sql.ref(c)))
  await sql`insert into request_log_next (${columns}) select ${columns} from request_log order by at, id`.execute(db)
  await db.schema.dropTable('request_log').execute()
  await db.schema.alterTable('request_log_next').renameTo('request_log').execute()
  await createIndexes(db, false)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createTable(db, 'request_log_previous', 'text')
  const columns = sql.join(COLUMNS.map((c) => sql.ref(c)))
  // The old ids sorted as text within a process: the integer, zero-padded, keeps the order.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  const padded = postgres ? sql`lpad(cast(id as text), 12, '0')` : sql`substr('000000000000' || id, -12)`
  await sql`insert into request_log_previous (id, ${columns}) select ${sql.lit('m-')} || ${padded}, ${columns} from request_log`.execute(db)
  await db.schema.dropTable('request_log').execute()
  await db.schema.alterTable('request_log_previous').renameTo('request_log').execute()
  await createIndexes(db, true)
}
