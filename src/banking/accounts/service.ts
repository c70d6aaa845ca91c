// The four account reads. Each reads only the principal's own accounts: everything is looked up under the
// principal's customer id, so an account token of another customer finds nothing and answers exactly as an
// unknown token does.
//
// Account data does not change after it is imported (the importer refuses an existing customer or account
// token), so each customer's accounts are read and parsed once and then served from a bounded in-process cache.
// That keeps the reads at the cost of the gateway; a future feature that changes accounts must call `forget`.
import type { Static } from 'typebox'
import type { Db } from '../../platform/db/database.js'
import { notFound, unauthenticated } from '../../platform/errors.js'
import type { BankingPrincipal } from '../auth/service.js'
import { convertAmount } from './money.js'
import * as repo from './repository.js'
import type { AccountDetails, AccountListEntry, Balance, BalanceEntry, Category, QuickBalanceEntry } from './schemas.js'

type ListEntry = Static<typeof AccountListEntry>
type StoredListFields = Omit<ListEntry, 'accountToken'>
type Details = Static<typeof AccountDetails>
type QuickEntry = Static<typeof QuickBalanceEntry>
type Threshold = NonNullable<QuickEntry['balanceThreshold']>

const BANK_ACCOUNT_TYPES = new Set(['DDA', 'SDA', 'TDP'])
const CARD_TYPES = new Set(['MCD', 'VCD', 'ACD'])

/** Customers whose parsed accounts stay in memory; the least recently read are dropped first. */
export const ACCOUNT_CACHE_CUSTOMERS = 2_000

/** A value, or a promise of it while it is still being read. */
export type MaybePromise<T> = T | Promise<T>

// What list, quickBalances and details return is shared with later calls for the same customer: never mutate it.
// They answer at once, without a promise, when the customer's accounts are already in memory.
export interface AccountsService {
  list(principal: BankingPrincipal, category?: Category): MaybePromise<ListEntry[]>
  balances(principal: BankingPrincipal, query: { category?: Category; groupId?: string; baseCurrency?: string }): Promise<Static<typeof BalanceEntry>[]>
  quickBalances(principal: BankingPrincipal): MaybePromise<QuickEntry[]>
  details(principal: BankingPrincipal, accountToken: string): MaybePromise<Details>
  /** Drops a customer's cached accounts, for whatever changes them. */
  forget(customerId: string): void
}

/** One account as read from the database, its documents parsed. Shared between requests: never mutated. */
interface StoredAccount {
  accountToken: string
  category: Category
  accountType: string
  groupId: string | null
  isVisible: boolean
  list: StoredListFields
  balance: Balance
  threshold: Threshold | undefined
  detailsJson: string
  /** Parsed on first use: most accounts are never opened. */
  details?: Details
}

/** A customer's accounts, with the answers that depend only on them computed on first use. */
interface CustomerAccounts {
  accounts: StoredAccount[]
  lists: Map<Category | undefined, ListEntry[]>
  quick?: QuickEntry[]
  byToken: Map<string, StoredAccount>
}

function readable(principal: BankingPrincipal): string {
  // A party-identifier login may only track applications (userLevelFlags.isRestrictedToAppTracker).
  if (principal.restricted) throw unauthenticated([{ field: 'Authorization', reason: 'this login is restricted to application tracking' }])
  return principal.customerId
}

function toStored(row: repo.AccountRow): StoredAccount {
  return {
    accountToken: row.account_token,
    category: row.category,
    accountType: row.account_type,
    groupId: row.group_id,
    isVisible: row.is_visible === 1,
    list: JSON.parse(row.list_json) as StoredListFields,
    balance: JSON.parse(row.balance_json) as Balance,
    threshold: row.threshold_json ? (JSON.parse(row.threshold_json) as Threshold) : undefined,
    detailsJson: row.details_json,
  }
}

export function createAccountsService(deps: { db: Pick<Db, 'kysely'>; cacheCustomers?: number }): AccountsService {
  const { db } = deps
  const capacity = deps.cacheCustomers ?? ACCOUNT_CACHE_CUSTOMERS
  // Insertion order is recency order: a hit is moved to the end, the first entry is the least recently used.
  // While a customer is being read the entry is the promise, so concurrent first reads share one query; once
  // read, it is the value itself, so later reads need no promise.
  const cache = new Map<string, MaybePromise<CustomerAccounts>>()

  function customerAccounts(customerId: string): MaybePromise<CustomerAccounts> {
    const cached = cache.get(customerId)
    if (cached) {
      cache.delete(customerId)
      cache.set(customerId, cached)
      return cached
    }
    const loading: Promise<CustomerAccounts> = repo.listCustomerAccounts(db.kysely, customerId).then(
      (rows) => {
        const accounts = rows.map(toStored)
        const loaded = { accounts, lists: new Map(), byToken: new Map(accounts.map((a) => [a.accountToken, a])) }
        // Unless it was forgotten or evicted meanwhile (setting an existing key keeps its place in the order).
        if (cache.get(customerId) === loading) cache.set(customerId, loaded)
        return loaded
      },
      (err: unknown) => {
        if (cache.get(customerId) === loading) cache.delete(customerId)
        throw err
      },
    )
    if (cache.size >= capacity) cache.delete(cache.keys().next().value!)
    cache.set(customerId, loading)
    return loading
  }

  return {
    list(principal, category) {
      return whenLoaded(customerAccounts(readable(principal)), (customer) => {
        let entries = customer.lists.get(category)
        if (!entries) {
          entries = customer.accounts
            .filter((a) => a.isVisible && (category === undefined || a.category === category))
            .map((a) => ({ accountToken: a.accountToken, ...a.list, category: a.category }))
          customer.lists.set(category, entries)
        }
        return entries
      })
    },

    async balances(principal, query) {
      const customerId = readable(principal)
      const baseCurrency = query.baseCurrency ?? 'AUD'
      const [customer, rates] = await Promise.all([customerAccounts(customerId), repo.ratesTo(db.kysely, baseCurrency)])
      return customer.accounts
        .filter((a) => a.isVisible && (query.category === undefined || a.category === query.category) && (query.groupId === undefined || a.groupId === query.groupId))
        .map((a) => {
          const entry: Static<typeof BalanceEntry> = {
            accountToken: a.accountToken,
            accountIdDisplay: a.list.accountIdDisplay,
            accountType: a.accountType,
            category: a.category,
            balance: withBaseCurrency(a.balance, baseCurrency, rates),
          }
          if (a.list.nickname !== undefined) entry.nickname = a.list.nickname
          return entry
        })
    },

    quickBalances(principal) {
      return whenLoaded(customerAccounts(readable(principal)), (customer) => (customer.quick ??= customer.accounts.filter((a) => a.isVisible).map(quickBalance)))
    },

    details(principal, accountToken) {
      return whenLoaded(customerAccounts(readable(principal)), (customer) => {
        const account = customer.byToken.get(accountToken)
        if (!account) throw notFound([{ field: 'accountToken', reason: 'no such account' }])
        account.details ??= { accountToken: account.accountToken, accountIdDisplay: account.list.accountIdDisplay, ...(JSON.parse(account.detailsJson) as object) } as Details
        return account.details
      })
    },

    forget(customerId) {
      cache.delete(customerId)
    },
  }
}

/** Applies `f` to a value that may still be loading, at once when it is already there. */
function whenLoaded<T, R>(value: MaybePromise<T>, f: (value: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(f) : f(value)
}

function quickBalance(a: StoredAccount): QuickEntry {
  const list = a.list
  const entry: QuickEntry = { accountToken: a.accountToken, accountType: a.accountType }
  if (BANK_ACCOUNT_TYPES.has(a.accountType) && list.accountApca) {
    entry.bsb = list.accountApca.bsb
    entry.accountId = list.accountApca.accountId
  }
  if (CARD_TYPES.has(a.accountType) && list.cardAccount) entry.accountIdDisplay = list.cardAccount.cardNumber
  if (list.nickname !== undefined) entry.accountNickname = list.nickname
  if (list.availableBalance !== undefined) entry.availableBalance = list.availableBalance
  if (list.currentBalance !== undefined) entry.currentBalance = list.currentBalance
  if (a.threshold) entry.balanceThreshold = a.threshold
  return entry
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
