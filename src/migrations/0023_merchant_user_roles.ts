import type { Kysely } from 'kysely'

// Issue 24: roles of merchant users, given with the CLI (`finapi users grant-operator`). An operator sees the whole
// organization tree in the console, and every organization's merchant users, reporting keys and OAuth clients. A row
// per role a user has; none means an ordinary merchant user. Deleted when the role is taken back.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('merchant_user_roles')
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('merchant_user_roles_pk', ['customer_id', 'role'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('merchant_user_roles').execute()
}
