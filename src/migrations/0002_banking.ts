import { sql, type Kysely } from 'kysely'

// Customers, their credentials and sessions, and their accounts. An account's list entry, balance and details
// are stored as JSON documents validated against the wire schemas on the way in (amounts inside are strings);
// the columns beside them are what queries filter and order by.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('lob', 'text', (c) => c.notNull())
    .addColumn('is_business', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('lob', 'text', (c) => c.notNull())
    // What finds the credential: a username, a device registration id, or a hash of party identifiers or token.
    .addColumn('lookup_key', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('public_key', 'text')
    // For soft credentials from POST /v2/token: the type asked for (softcredential, touch).
    .addColumn('token_type', 'text')
    .addColumn('restricted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('credentials_lookup', ['brand', 'lob', 'kind', 'lookup_key'])
    .execute()
  await db.schema.createIndex('credentials_customer').on('credentials').column('customer_id').execute()

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('restricted', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('account_token', 'text', (c) => c.notNull().unique())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull().check(sql`category in ('domestic', 'cards', 'packages')`))
    .addColumn('account_type', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text')
    .addColumn('is_visible', 'integer', (c) => c.notNull())
    .addColumn('list_json', 'text', (c) => c.notNull())
    .addColumn('balance_json', 'text', (c) => c.notNull())
    .addColumn('threshold_json', 'text')
    .addColumn('details_json', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('accounts_customer').on('accounts').columns(['customer_id', 'position']).execute()

  await db.schema
    .createTable('exchange_rates')
    .addColumn('from_currency', 'text', (c) => c.notNull())
    .addColumn('to_currency', 'text', (c) => c.notNull())
    // Units of to_currency for one unit of from_currency, as an exact decimal string.
    .addColumn('rate', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('exchange_rates_pk', ['from_currency', 'to_currency'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['exchange_rates', 'accounts', 'sessions', 'credentials', 'customers']) await db.schema.dropTable(table).execute()
}
