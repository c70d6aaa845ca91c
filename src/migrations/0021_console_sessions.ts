import type { Kysely } from 'kysely'

// Issue 24: the merchant console's sign-in sessions. A row per session, found by the SHA-256 of the random token
// the cookie carries (never the token), with the merchant user, the organization it acts for (chosen under the
// API's organizationId rule), and its idle and absolute expiries; sign-out sets revoked_at.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('acting_organization_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('idle_expires_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('console_sessions_expiry').on('console_sessions').column('idle_expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_sessions').execute()
}
