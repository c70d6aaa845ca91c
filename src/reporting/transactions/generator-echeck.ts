// eCheck (ACH) payments for the generator, and the notifications of change banks send back for some of them (a
// corrected account or routing number): the data behind GET /reporting/v3/notification-of-changes. Kept apart
// from generator.ts, which draws the orders, so each file stays readable.
import type { CatalogFields } from './catalog.js'
import { CURRENCIES, type Brand, type Currency } from './generator-data.js'
import type { Random } from './prng.js'

/** eCheck (ACH) payments: no card brand (no payment subtype), a per-item fee only, funded a day later. */
export const ECHECK: Brand = { subtype: '', cardType: 'eCheck', code: '', bins: [], discountRate: '0.00', interchangeRate: '0.00', discountFraction: '0', interchangeFraction: '0', fundingLag: 1 }

const DAY_MS = 86_400_000

/** ACH Notification of Change codes: what the receiving bank corrected. */
const NOC_CODES: readonly (readonly [string, 'account' | 'routing' | 'both' | 'type'])[] = [
  ['C01', 'account'],
  ['C02', 'routing'],
  ['C03', 'both'],
  ['C05', 'type'],
]
const ACCOUNT_TYPES = ['Checking Account', 'Savings Account'] as const

/** Turns a card customer into an eCheck payer: ACH is a US payment, in dollars, from a bank account. */
export function toECheck(rng: Random, customer: { brand: Brand; currency: Currency; fields: CatalogFields }): void {
  customer.brand = ECHECK
  customer.currency = CURRENCIES[0]![0]
  const fields = customer.fields
  const suffix = rng.digits(4)
  fields['PaymentMethod'] = { AccountSuffix: suffix, BankAccountName: `${fields['BillTo']?.['FirstName'] ?? ''} ${fields['BillTo']?.['LastName'] ?? ''}`.trim(), Type: 'check' }
  fields['Check'] = { BankTransitNumber: `0${rng.digits(8)}`, AccountEncoderID: rng.pick(['C', 'S']), SecCode: 'WEB' }
  fields['PaymentFields'] = { AccountSuffix: suffix, AccountType: rng.pick(['C', 'S']) }
  delete fields['PaymentData']!['BinNumber']
  delete fields['Token']
}

/**
 * A notification of change for an eCheck payment requested at `ms`, arriving 2 to 5 days later, or undefined when
 * that is after `endMs` (it has not happened yet). `NotificationOfChange` is an extension to the catalog.
 */
export function notificationOfChange(rng: Random, fields: CatalogFields, ms: number, endMs: number): Record<string, string> | undefined {
  const at = ms + rng.int(2 * DAY_MS, 5 * DAY_MS)
  const [code, corrected] = rng.pick(NOC_CODES)
  if (at > endMs) return undefined
  const check = fields['Check'] ?? {}
  const account = corrected === 'account' || corrected === 'both' ? rng.digits(4) : (fields['PaymentMethod']?.['AccountSuffix'] ?? rng.digits(4))
  const routing = corrected === 'routing' || corrected === 'both' ? `0${rng.digits(8)}` : (check['BankTransitNumber'] ?? `0${rng.digits(8)}`)
  return {
    Time: new Date(at).toISOString(),
    Code: code,
    AccountType: corrected === 'type' ? ACCOUNT_TYPES[1] : ACCOUNT_TYPES[0],
    RoutingNumber: routing,
    AccountNumber: `############${account}`,
    ConsumerName: fields['PaymentMethod']?.['BankAccountName'] ?? '',
  }
}
