// A stored transaction as the rest of the code sees it, and how each catalog field (`Group.Field`, e.g.
// `BillTo.Email`) is read from it: a few fields are the store's core columns, every other one sits in `fields`.

export const TRANSACTION_TYPES = ['authorization', 'capture', 'sale', 'refund', 'void', 'credit', 'chargeback'] as const
export type TransactionType = (typeof TRANSACTION_TYPES)[number]

export const DECISIONS = ['ACCEPT', 'REVIEW', 'REJECT', 'ERROR'] as const
export type Decision = (typeof DECISIONS)[number]

/** Group → field → value: every catalog field of a transaction that is not a core column. */
export type CatalogFields = Record<string, Record<string, string>>

export interface Transaction {
  /** The merchant id, e.g. `testrest`. */
  organizationId: string
  requestId: string
  type: TransactionType
  /** ISO-8601 UTC with milliseconds, e.g. `2026-03-01T10:15:00.000Z`. */
  requestTime: string
  /** When its batch was submitted for settlement; absent until batched. */
  submissionTime?: string
  /** `YYYY-MM-DD`; absent until funded. */
  fundingDate?: string
  /** VI, MC, AX, DI, DP, … */
  paymentSubtype?: string
  currency: string
  /** Exact decimal text. */
  amount: string
  settlementCurrency?: string
  settlementAmount?: string
  batchId?: string
  /** The Decision Manager decision at request time. */
  decision?: Decision
  fields: CatalogFields
}

/** The core columns, in the order of the import's CSV header and of the repository's insert. */
export const CORE_COLUMNS = [
  'organizationId',
  'requestId',
  'type',
  'requestTime',
  'submissionTime',
  'fundingDate',
  'paymentSubtype',
  'currency',
  'amount',
  'settlementCurrency',
  'settlementAmount',
  'batchId',
  'decision',
] as const satisfies readonly (keyof Transaction)[]
export type CoreColumn = (typeof CORE_COLUMNS)[number]

/**
 * Catalog fields held as core columns. A file may not also give them under `fields` (one value, one place);
 * reading them with catalogValue() answers from the column.
 */
export const CATALOG_CORE: Readonly<Record<string, CoreColumn>> = {
  'Request.RequestID': 'requestId',
  'Request.MerchantID': 'organizationId',
  'Request.TransactionDate': 'requestTime',
  'PaymentData.Amount': 'amount',
  'PaymentData.CurrencyCode': 'currency',
  'Settlement.SettlementAmount': 'settlementAmount',
  'Settlement.SettlementCurrencyCode': 'settlementCurrency',
  'Batch.BatchID': 'batchId',
  'Funding.FundingDate': 'fundingDate',
}

/** The core column holding a catalog field, if one does: own members only, since names come from callers. */
export function coreColumn(name: string): CoreColumn | undefined {
  return Object.hasOwn(CATALOG_CORE, name) ? CATALOG_CORE[name] : undefined
}

/** The value of a catalog field (`Group.Field`) of a transaction, or undefined when it has none. */
export function catalogValue(transaction: Transaction, name: string): string | undefined {
  const core = coreColumn(name)
  if (core !== undefined) return transaction[core]
  const dot = name.indexOf('.')
  if (dot <= 0) return undefined
  const [group, field] = [name.slice(0, dot), name.slice(dot + 1)]
  const members = Object.hasOwn(transaction.fields, group) ? transaction.fields[group] : undefined
  return members !== undefined && Object.hasOwn(members, field) ? members[field] : undefined
}

/** A catalog group name: letters, digits and `-` (`Merchant-DefinedDataFields`). */
export const GROUP_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,63}$/
/** A field name within a group: anything printable but `.` (the catalog has `PersonalId(CPF/CNPJ)`, `IP Postal`). */
export const FIELD_PATTERN = /^[^.\s][^.]{0,99}$/

/** Splits `Group.Field` at its first dot; undefined when either part is not a valid name. */
export function splitCatalogName(name: string): { group: string; field: string } | undefined {
  const dot = name.indexOf('.')
  if (dot <= 0) return undefined
  const group = name.slice(0, dot)
  const field = name.slice(dot + 1)
  return GROUP_PATTERN.test(group) && FIELD_PATTERN.test(field) ? { group, field } : undefined
}
