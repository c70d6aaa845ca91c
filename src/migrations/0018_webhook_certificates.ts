import type { Kysely } from 'kysely'

// Webhook message-level encryption certificates (POST /kms/egress/v2/keys-asym): the subscriber's public X.509
// certificate, kept as PEM with its SHA-256 fingerprint and validity end. Only public material: no private key is
// ever stored (the request's pvt member is dropped), so nothing here is sealed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('key_type', 'text', (c) => c.notNull())
    .addColumn('client_reference_code', 'text')
    .addColumn('certificate', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_certificates_organization').on('webhook_certificates').columns(['organization_id', 'created_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_certificates').execute()
}
