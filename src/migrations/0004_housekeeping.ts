import type { Kysely } from 'kysely'

// Sessions remember the credential that opened them, so revoking a credential ends its sessions too. Expiry
// columns get indexes so the periodic pruning of spent sessions, tokens and codes does not scan whole tables.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Sessions opened before this migration have no credential recorded; they run out within their 15 minutes.
  await db.schema
    .alterTable('sessions')
    .addColumn('credential_id', 'text', (c) => c.references('credentials.id').onDelete('cascade'))
    .execute()
  await db.schema.createIndex('sessions_credential').on('sessions').column('credential_id').execute()
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute()
  await db.schema.createIndex('oauth_tokens_expiry').on('oauth_tokens').column('expires_at').execute()
  await db.schema.createIndex('oauth_grants_created').on('oauth_grants').column('created_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['oauth_grants_created', 'oauth_tokens_expiry', 'sessions_expiry', 'sessions_credential']) await db.schema.dropIndex(index).execute()
  await db.schema.alterTable('sessions').dropColumn('credential_id').execute()
}
