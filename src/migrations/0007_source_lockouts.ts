import type { Kysely } from 'kysely'

// Sandbox sign-in failures counted per credential and source address, so five wrong passwords lock the published
// sandbox customers for their sender only. A row lives until `expires_at` (15 minutes after its last failure, or
// the end of its lock) and is then deleted by housekeeping.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('source_sign_in_failures')
    .addColumn('credential_id', 'text', (c) => c.notNull().references('credentials.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('source_sign_in_failures_pk', ['credential_id', 'source'])
    .execute()
  await db.schema.createIndex('source_sign_in_failures_expiry').on('source_sign_in_failures').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('source_sign_in_failures').execute()
}
