import type { Kysely } from 'kysely'

// Issue 12's other two ways into /reporting/v3 besides HTTP Signature: OAuth bearer tokens and the SDK's JWT.
// - An OAuth client may belong to an organization (its client_credentials tokens act for it), and a grant records
//   the organization its tokens act for, fixed when it is made.
// - A merchant user is a customer tied to an organization: it signs in on the consent page for a partner's client.
// - A certificate registered for an organization verifies RS256 JWTs; its subject serialNumber is the JWT `kid`.
// - The JWT ids (`jti`) seen, by a hash, while their token could still be accepted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('organization_id', 'text', (c) => c.references('organizations.id')).execute()
  await db.schema.alterTable('oauth_grants').addColumn('organization_id', 'text').execute()
  await db.schema.alterTable('customers').addColumn('organization_id', 'text', (c) => c.references('organizations.id')).execute()
  await db.schema.createIndex('customers_organization').on('customers').column('organization_id').execute()

  await db.schema
    .createTable('reporting_certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    // The certificate subject's serialNumber attribute: what the official SDK sends as the JWT header's kid.
    .addColumn('kid', 'text', (c) => c.notNull())
    // PEM; public, so stored as it is.
    .addColumn('certificate', 'text', (c) => c.notNull())
    // SHA-256 of the DER, hex: the same certificate is registered once.
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('reporting_certificates_kid').on('reporting_certificates').column('kid').execute()
  await db.schema.createIndex('reporting_certificates_fingerprint').on('reporting_certificates').column('fingerprint').unique().execute()

  await db.schema
    .createTable('reporting_jwt_ids')
    // SHA-256 of the verifying key's id and the token's jti.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('reporting_jwt_ids_expiry').on('reporting_jwt_ids').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reporting_jwt_ids').execute()
  await db.schema.dropTable('reporting_certificates').execute()
  await db.schema.dropIndex('customers_organization').execute()
  await db.schema.alterTable('customers').dropColumn('organization_id').execute()
  await db.schema.alterTable('oauth_grants').dropColumn('organization_id').execute()
  await db.schema.alterTable('oauth_clients').dropColumn('organization_id').execute()
}
