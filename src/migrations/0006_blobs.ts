import { PostgresAdapter, type Kysely } from 'kysely'

// The database blob store: a blob is a row naming its current version, and the version's bytes are fixed-size
// chunk rows, so a range read fetches only the chunks it needs. An overwrite writes a new version and switches
// the row in one transaction. Binary columns are the one non-portable type: bytea on PostgreSQL, blob on SQLite.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Migrations receive a bare Kysely; its adapter is the only way to tell the dialect (getExecutor is marked internal).
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('blobs')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('version_id', 'text', (c) => c.notNull().unique())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('chunk_size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('blob_chunks')
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_chunks_pk', ['version_id', 'seq'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('blob_chunks').execute()
  await db.schema.dropTable('blobs').execute()
}

