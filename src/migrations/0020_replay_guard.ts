import { sql, type Kysely } from 'kysely'

// Issue 19: one memory of credentials already used (platform/replay-guard.ts) instead of two tables written the same
// way, now also holding the HTTP Signatures of reporting writes. A row is a digest naming one use (never the
// credential), how many uses are spent (a GET's JWT has two), and until when the credential could be accepted.
// The ids and proofs still live are carried over under the same digests, so none becomes usable again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('replay_guard')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('uses', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('replay_guard_expiry').on('replay_guard').column('expires_at').execute()
  await sql`insert into replay_guard (key_hash, uses, expires_at) select id_hash, 1, expires_at from reporting_jwt_ids`.execute(db)
  await sql`insert into replay_guard (key_hash, uses, expires_at) select proof_hash, 1, expires_at from oauth_dpop_proofs`.execute(db)
  await db.schema.dropTable('reporting_jwt_ids').execute()
  await db.schema.dropTable('oauth_dpop_proofs').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_dpop_proofs')
    .addColumn('proof_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_dpop_proofs_expiry').on('oauth_dpop_proofs').column('expires_at').execute()
  await db.schema
    .createTable('reporting_jwt_ids')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('reporting_jwt_ids_expiry').on('reporting_jwt_ids').column('expires_at').execute()
  await db.schema.dropTable('replay_guard').execute()
}
