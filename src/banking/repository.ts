// SQL for the banking feature. Functions take the database handle or a transaction; the service owns the
// transaction boundary. Account reads always filter by customer: object-level authorization lives in the query.
import type { CompiledQuery, Insertable, Kysely, Selectable } from 'kysely'
import type { AccountsTable, CredentialsTable, CustomersTable, Database, SessionsTable } from '../platform/db/schema.js'

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

export function listCredentials(db: Executor, customerId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'kind', 'brand', 'lob', 'token_type', 'restricted', 'locked_until', 'revoked_at', 'created_at'])
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export async function revokeCredential(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('credentials').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Ends every session the credential opened that has not ended yet. */
export async function revokeSessionsOf(db: Executor, credentialId: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: at }).where('credential_id', '=', credentialId).where('revoked_at', 'is', null).where('expires_at', '>', at).execute()
}

/** Sessions that ended (expired, or revoked and since expired) before `before`: they can never be used again. */
export async function deleteSessionsExpiredBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function insertSession(db: Executor, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

// Every authenticated call looks its session up, so the query is compiled once per handle and only re-bound:
// building and compiling it each time cost more than running it.
const sessionQueries = new WeakMap<Executor, CompiledQuery<SessionRow>>()

export async function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  let compiled = sessionQueries.get(db)
  if (!compiled) {
    compiled = db.selectFrom('sessions').selectAll().where('token_hash', '=', '').compile()
    sessionQueries.set(db, compiled)
  }
  const { rows } = await db.executeQuery({ ...compiled, parameters: [tokenHash] })
  return rows[0] as SessionRow | undefined
}

export async function revokeSession(db: Executor, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: at }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute()
}

// ---- Accounts ----------------------------------------------------------------------------------------------

/** All of one customer's accounts, visible or not, in their display order. */
export function listCustomerAccounts(db: Executor, customerId: string): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().where('customer_id', '=', customerId).orderBy('position').execute()
}

export async function ratesTo(db: Executor, toCurrency: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('exchange_rates').select(['from_currency', 'rate']).where('to_currency', '=', toCurrency).execute()
  return new Map(rows.map((r) => [r.from_currency, r.rate]))
}
