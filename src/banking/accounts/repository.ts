// SQL for the banking feature: accounts and exchange rates (customers, credentials and sessions are identity's).
// Functions take the database handle or a transaction; the service or the importer owns the transaction
// boundary. Account reads always filter by customer: object-level authorization lives in the query.
import type { Insertable, Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.js'
import type { AccountsTable } from '../tables.js'

export type AccountRow = Selectable<AccountsTable>

// ---- Accounts ----------------------------------------------------------------------------------------------

/** All of one customer's accounts, visible or not, in their display order. */
export function listCustomerAccounts(db: Executor, customerId: string): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().where('customer_id', '=', customerId).orderBy('position').execute()
}

export async function ratesTo(db: Executor, toCurrency: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('exchange_rates').select(['from_currency', 'rate']).where('to_currency', '=', toCurrency).execute()
  return new Map(rows.map((r) => [r.from_currency, r.rate]))
}

/** The first of `tokens` an account already has, if any. */
export async function firstExistingAccountToken(db: Executor, tokens: string[]): Promise<string | undefined> {
  if (tokens.length === 0) return undefined
  return (await db.selectFrom('accounts').select('account_token').where('account_token', 'in', tokens).executeTakeFirst())?.account_token
}

export async function insertAccounts(db: Executor, rows: Insertable<AccountsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('accounts').values(rows).execute()
}

/** Stores a rate, replacing the one stored for the same pair. */
export async function upsertExchangeRate(db: Executor, from: string, to: string, rate: string): Promise<void> {
  await db
    .insertInto('exchange_rates')
    .values({ from_currency: from, to_currency: to, rate })
    .onConflict((oc) => oc.columns(['from_currency', 'to_currency']).doUpdateSet({ rate }))
    .execute()
}
