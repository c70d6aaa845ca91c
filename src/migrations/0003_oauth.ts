import { sql, type Kysely } from 'kysely'

// The OAuth 2.0 authorization server: clients, pending consents (between the sign-in and the Allow/Deny step),
// authorization codes, grants (one per token family) and tokens. Every secret (client secret, consent id,
// code, access and refresh token) is stored as a hash only; lookups go by that hash.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // A client is found either by its generated public client_id, or (banking) by the key of its application,
    // which the spec makes the client_id and which is itself stored only as a hash in applications.
    .addColumn('public_id', 'text', (c) => c.unique())
    .addColumn('application_id', 'text', (c) => c.unique().references('applications.id').onDelete('cascade'))
    // scrypt hash of the client secret; null for a public client.
    .addColumn('secret_hash', 'text')
    // JSON array of redirect URIs, matched exactly.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    // The sandbox client: any http redirect URI on localhost or 127.0.0.1 is accepted besides the exact ones.
    .addColumn('loopback_redirects', 'integer', (c) => c.notNull().defaultTo(0))
    // Space-separated scopes the client may ask for.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addCheckConstraint('oauth_clients_one_identity', sql`(public_id is null) <> (application_id is null)`)
    .execute()

  await db.schema
    .createTable('oauth_consents')
    // SHA-256 of the random value the page's forms carry; changes when the account holder signs in.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    // SHA-256 of the browser-binding cookie of the browser that started the request.
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('lob', 'text', (c) => c.notNull())
    // Set once the account holder has signed in; the Allow/Deny step needs it.
    .addColumn('customer_id', 'text', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_consents_expiry').on('oauth_consents').column('expires_at').execute()

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    // Null for a client's own token (client_credentials).
    .addColumn('customer_id', 'text', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Revoking the grant revokes every access and refresh token of the family at once.
    .addColumn('revoked_at', 'text')
    .execute()

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    // The grant the first use created: a second use revokes it.
    .addColumn('grant_id', 'text', (c) => c.references('oauth_grants.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_codes_expiry').on('oauth_codes').column('expires_at').execute()

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // A refresh token is used once: the refresh that spends it returns its successor.
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oauth_tokens', 'oauth_codes', 'oauth_grants', 'oauth_consents', 'oauth_clients']) await db.schema.dropTable(table).execute()
}
