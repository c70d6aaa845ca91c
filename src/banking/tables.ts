// Table types of customers' accounts and the exchange rates (migration 0002). An account's list entry, balance and
// details are JSON text validated against the wire schemas on the way in.

export interface AccountsTable {
  id: string
  customer_id: string
  account_token: string
  position: number
  category: 'domestic' | 'cards' | 'packages'
  account_type: string
  group_id: string | null
  is_visible: number
  list_json: string
  balance_json: string
  threshold_json: string | null
  details_json: string
}

export interface ExchangeRatesTable {
  from_currency: string
  to_currency: string
  rate: string
}

/** Banking's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface BankingTables {
  accounts: AccountsTable
  exchange_rates: ExchangeRatesTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    banking: BankingTables
  }
}
