// SQL for the banking feature. Functions take the database handle or a transaction; the service owns the
// transaction boundary. Account reads always filter by customer: object-level authorization lives in the query.
import type { Insertable, Kysely, Selectable } from 'kysely'
import type { AccountsTable, CredentialsTable, CustomersTable, Database, SessionsTable } from '../platform/db/schema.js'
import type { Category } from './schemas.js'

export type Executor = Kysely<Database>
export type CredentialRow = Selectable<CredentialsTable>
export type SessionRow = Selectable<SessionsTable>
export type AccountRow = Selectable<AccountsTable>

// ---- Credentials and sessions ------------------------------------------------------------------------------

export function findCredential(db: Executor, brand: string, lob: string, kind: string, lookupKey: string): Promise<CredentialRow | undefined> {
  return db
    .selectFrom('credentials')
    .selectAll()
    .where('brand', '=', brand)
    .where('lob', '=', lob)
    .where('kind', '=', kind)
    .where('lookup_key', '=', lookupKey)
    .executeTakeFirst()
}

export async function recordFailure(db: Executor, id: string, failedAttempts: number, lockedUntil: string | null): Promise<void> {
  await db.updateTable('credentials').set({ failed_attempts: failedAttempts, locked_until: lockedUntil }).where('id', '=', id).execute()
}

export async function clearFailures(db: Executor, id: string): Promise<void> {
  await db.updateTable('credentials').set({ failed_attempts: 0, locked_until: null }).where('id', '=', id).where('failed_attempts', '>', 0).execute()
}

export function findCustomer(db: Executor, id: string): Promise<Selectable<CustomersTable> | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertCredential(db: Executor, row: Insertable<CredentialsTable>): Promise<void> {
  await db.insertInto('credentials').values(row).execute()
}

export async function insertSession(db: Executor, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

export function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
}

export async function revokeSession(db: Executor, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: at }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute()
}

// ---- Accounts ----------------------------------------------------------------------------------------------

export interface AccountFilter {
  category?: Category
  groupId?: string
}

type AccountColumn = keyof AccountRow

/** Only the named columns are read: the documents are large, and each read needs one or two of them. */
export function listVisibleAccounts<C extends AccountColumn>(db: Executor, customerId: string, columns: readonly C[], filter: AccountFilter = {}): Promise<Pick<AccountRow, C>[]> {
  let query = db.selectFrom('accounts').select(columns as readonly AccountColumn[]).where('customer_id', '=', customerId).where('is_visible', '=', 1)
  if (filter.category) query = query.where('category', '=', filter.category)
  if (filter.groupId) query = query.where('group_id', '=', filter.groupId)
  return query.orderBy('position').execute() as Promise<Pick<AccountRow, C>[]>
}

/** The account with this token, only if it belongs to this customer: another customer's token finds nothing. */
export function findAccountDetails(db: Executor, customerId: string, accountToken: string) {
  return db
    .selectFrom('accounts')
    .select(['account_token', 'list_json', 'details_json'])
    .where('account_token', '=', accountToken)
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
}

export async function ratesTo(db: Executor, toCurrency: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('exchange_rates').select(['from_currency', 'rate']).where('to_currency', '=', toCurrency).execute()
  return new Map(rows.map((r) => [r.from_currency, r.rate]))
}
