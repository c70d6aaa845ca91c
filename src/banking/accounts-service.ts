// The four account reads. Each reads only the principal's own accounts: the customer id is part of every query,
// so an account token of another customer finds nothing and answers exactly as an unknown token does.
import type { Static } from 'typebox'
import type { Db } from '../platform/db/database.js'
import { ApiError } from '../platform/errors.js'
import type { Principal } from './auth-service.js'
import { convertAmount } from './money.js'
import * as repo from './repository.js'
import type { AccountDetails, AccountListEntry, Balance, BalanceEntry, Category, QuickBalanceEntry } from './schemas.js'

type ListEntry = Static<typeof AccountListEntry>
type StoredListFields = Omit<ListEntry, 'accountToken'>

const BANK_ACCOUNT_TYPES = new Set(['DDA', 'SDA', 'TDP'])
const CARD_TYPES = new Set(['MCD', 'VCD', 'ACD'])

export interface AccountsService {
  list(principal: Principal, category?: Category): Promise<ListEntry[]>
  balances(principal: Principal, query: { category?: Category; groupId?: string; baseCurrency?: string }): Promise<Static<typeof BalanceEntry>[]>
  quickBalances(principal: Principal): Promise<Static<typeof QuickBalanceEntry>[]>
  details(principal: Principal, accountToken: string): Promise<Static<typeof AccountDetails>>
}

function readable(principal: Principal): string {
  // A party-identifier login may only track applications (userLevelFlags.isRestrictedToAppTracker).
  if (principal.restricted) throw new ApiError('API-448', [{ field: 'Authorization', reason: 'this login is restricted to application tracking' }])
  return principal.customerId
}

function listFields(row: Pick<repo.AccountRow, 'list_json'>): StoredListFields {
  return JSON.parse(row.list_json) as StoredListFields
}

export function createAccountsService(deps: { db: Pick<Db, 'kysely'> }): AccountsService {
  const { db } = deps
  return {
    async list(principal, category) {
      const rows = await repo.listVisibleAccounts(db.kysely, readable(principal), ['account_token', 'category', 'list_json'], { category })
      return rows.map((row) => ({ accountToken: row.account_token, ...listFields(row), category: row.category }))
    },

    async balances(principal, query) {
      const customerId = readable(principal)
      const baseCurrency = query.baseCurrency ?? 'AUD'
      const [rows, rates] = await Promise.all([
        repo.listVisibleAccounts(db.kysely, customerId, ['account_token', 'account_type', 'category', 'list_json', 'balance_json'], {
          category: query.category,
          groupId: query.groupId,
        }),
        repo.ratesTo(db.kysely, baseCurrency),
      ])
      return rows.map((row) => {
        const list = listFields(row)
        const entry: Static<typeof BalanceEntry> = {
          accountToken: row.account_token,
          accountIdDisplay: list.accountIdDisplay,
          accountType: row.account_type,
          category: row.category,
          balance: withBaseCurrency(JSON.parse(row.balance_json) as Balance, baseCurrency, rates),
        }
        if (list.nickname !== undefined) entry.nickname = list.nickname
        return entry
      })
    },

    async quickBalances(principal) {
      const rows = await repo.listVisibleAccounts(db.kysely, readable(principal), ['account_token', 'account_type', 'list_json', 'threshold_json'])
      return rows.map((row) => {
        const list = listFields(row)
        const entry: Static<typeof QuickBalanceEntry> = { accountToken: row.account_token, accountType: row.account_type }
        if (BANK_ACCOUNT_TYPES.has(row.account_type) && list.accountApca) {
          entry.bsb = list.accountApca.bsb
          entry.accountId = list.accountApca.accountId
        }
        if (CARD_TYPES.has(row.account_type) && list.cardAccount) entry.accountIdDisplay = list.cardAccount.cardNumber
        if (list.nickname !== undefined) entry.accountNickname = list.nickname
        if (list.availableBalance !== undefined) entry.availableBalance = list.availableBalance
        if (list.currentBalance !== undefined) entry.currentBalance = list.currentBalance
        if (row.threshold_json) entry.balanceThreshold = JSON.parse(row.threshold_json)
        return entry
      })
    },

    async details(principal, accountToken) {
      const row = await repo.findAccountDetails(db.kysely, readable(principal), accountToken)
      if (!row) throw new ApiError('API-404', [{ field: 'accountToken', reason: 'no such account' }])
      return { accountToken: row.account_token, accountIdDisplay: listFields(row).accountIdDisplay, ...JSON.parse(row.details_json) }
    },
  }
}

/** Adds `baseCurrencyBalance` to an amount balance: the available balance at the stored rate, exactly. */
function withBaseCurrency(balance: Balance, baseCurrency: string, rates: Map<string, string>): Balance {
  const amount = balance.amountBalance
  if (!amount) return balance
  const { currency, amount: value } = amount.availableBalance
  const rate = currency === baseCurrency ? '1' : rates.get(currency)
  const converted = rate === undefined ? undefined : convertAmount(value, rate, 2)
  const { baseCurrencyBalance: _stored, ...rest } = amount // recomputed for the asked base currency
  return { ...balance, amountBalance: converted === undefined ? rest : { ...rest, baseCurrencyBalance: { currency: baseCurrency, amount: converted } } }
}
