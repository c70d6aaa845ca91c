import type { Kysely } from 'kysely'

// The merchant side of the service: organizations in a tree (resellers → accounts → merchants) and the keys that
// sign reporting calls for them. A key's shared secret must be shown to the HMAC check, so it cannot be hashed: it
// is stored sealed (AES-256-GCM under a key derived from SECRETS_KEY), never in the clear.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('organizations_parent').on('organizations').column('parent_id').execute()
  await db.schema
    .createTable('reporting_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('reporting_keys_organization').on('reporting_keys').column('organization_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reporting_keys').execute()
  await db.schema.dropTable('organizations').execute()
}
