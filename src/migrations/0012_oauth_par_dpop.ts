import type { Kysely } from 'kysely'

// Issue 10's OAuth additions: per-client options (require pushed authorization requests, require DPoP), the DPoP
// key a grant's tokens are bound to, pushed authorization requests (RFC 9126) and the DPoP proofs seen (RFC 9449
// replay protection). Request URIs and proof ids are stored as SHA-256 hashes only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('require_par', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('oauth_clients').addColumn('require_dpop', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  // RFC 7638 thumbprint of the DPoP key every token of the grant is bound to; null for bearer tokens.
  await db.schema.alterTable('oauth_grants').addColumn('jkt', 'text').execute()

  await db.schema
    .createTable('oauth_pushed_requests')
    // SHA-256 of the request_uri handed to the client.
    .addColumn('uri_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    // The checked authorization request as JSON (redirect URI, scope, state, PKCE challenge, brand, lob).
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_pushed_requests_expiry').on('oauth_pushed_requests').column('expires_at').execute()

  await db.schema
    .createTable('oauth_dpop_proofs')
    // SHA-256 of the key thumbprint and the proof's jti.
    .addColumn('proof_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_dpop_proofs_expiry').on('oauth_dpop_proofs').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_dpop_proofs').execute()
  await db.schema.dropTable('oauth_pushed_requests').execute()
  await db.schema.alterTable('oauth_grants').dropColumn('jkt').execute()
  await db.schema.alterTable('oauth_clients').dropColumn('require_dpop').execute()
  await db.schema.alterTable('oauth_clients').dropColumn('require_par').execute()
}
