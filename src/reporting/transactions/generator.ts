// Deterministic, realistic transactions for a merchant: the same seed gives the same rows on every machine.
// Day by day it draws orders (sales, authorizations with captures, declines, voids, Decision Manager reviews,
// credits), refunds and chargebacks of earlier sales, with daily batches, settlement, fees and funding. A day
// holds exactly `perDay` rows (an order that does not fit is cut short, like an authorization not yet captured).
// It is a generator: rows are produced as they are stored, never all held at once.
import { type CatalogFields, type Decision, type Transaction, type TransactionType } from './catalog.js'
import { fromMinorUnits, multiply, subtract, sumDecimals } from './decimal.js'
import {
  APPLICATIONS,
  BRANDS,
  CHARGEBACK_REASONS,
  CURRENCIES,
  DECLINES,
  FIRST_NAMES,
  LAST_NAMES,
  PRODUCTS,
  REVIEW_COMMENTS,
  REVIEW_PROFILES,
  REVIEW_QUEUES,
  REVIEWERS,
  SETTLEMENT_CURRENCY,
  type Brand,
  type Currency,
} from './generator-data.js'
import { ECHECK, notificationOfChange, toECheck } from './generator-echeck.js'
import { createRandom, hash32, type Random } from './prng.js'

export interface GenerateOptions {
  organizationId: string
  days: number
  perDay: number
  seed: string
  /** The last day generated, `YYYY-MM-DD` (UTC); its rows are not batched yet, like today's. */
  end: string
}

export const MAX_PER_DAY = 999_999
const DAY_MS = 86_400_000
/** Transactions requested after this time of day (UTC) go into the next day's batch. */
const BATCH_CUTOFF_MS = 23 * 3_600_000
const RING_SIZE = 5000

type OrderKind = 'sale' | 'authCapture' | 'authOnly' | 'declined' | 'dmReject' | 'review' | 'voided' | 'refund' | 'credit' | 'chargeback' | 'echeck'
const ORDERS: readonly (readonly [OrderKind, number])[] = [
  ['sale', 44],
  ['authCapture', 22],
  ['authOnly', 3],
  ['declined', 7],
  ['dmReject', 2],
  ['review', 4],
  ['voided', 3],
  ['refund', 8],
  ['credit', 2],
  ['chargeback', 5],
  ['echeck', 2],
]

/** A settled sale or capture that later refunds and chargebacks may refer to. */
interface Settled {
  requestId: string
  amount: string
  currency: Currency
  brand: Brand
  day: number
  fields: CatalogFields
}

interface Customer {
  brand: Brand
  currency: Currency
  fields: CatalogFields
}

export function* generateTransactions(options: GenerateOptions): Generator<Transaction> {
  const { organizationId, days, perDay, seed } = options
  if (!Number.isInteger(days) || days < 1) throw new RangeError('days must be a positive integer')
  if (!Number.isInteger(perDay) || perDay < 1 || perDay > MAX_PER_DAY) throw new RangeError(`per-day must be an integer from 1 to ${MAX_PER_DAY}`)
  const endMs = Date.parse(`${options.end}T00:00:00Z`)
  if (Number.isNaN(endMs) || new Date(endMs).toISOString().slice(0, 10) !== options.end) throw new RangeError(`end must be a date YYYY-MM-DD: ${options.end}`)
  const orgCode = String(hash32(organizationId) % 10_000).padStart(4, '0')
  const ring: Settled[] = []

  for (let d = 0; d < days; d++) {
    const dayMs = endMs - (days - 1 - d) * DAY_MS
    const rng = createRandom(`${seed}:${organizationId}:${d}:${dayMs}`)
    const settledToday: Settled[] = []
    let seq = 0
    let emitted = 0
    const ctx = { rng, dayMs, endMs, orgCode, organizationId, day: d }
    const nextId = (ms: number) => `${Math.floor(ms / 1000)}${String(seq++).padStart(6, '0')}${rng.digits(6)}`

    while (emitted < perDay) {
      let kind = rng.weighted(ORDERS)
      const past = kind === 'refund' || kind === 'chargeback' ? pickPast(rng, ring, kind === 'chargeback' ? d - 7 : d - 1) : undefined
      if ((kind === 'refund' || kind === 'chargeback') && !past) kind = 'sale'
      // Orders arrive through the day in time order (with jitter), so rows reach the store nearly sorted by time
      // and request id, which keeps the indexes' inserts local. The last 90 minutes are left for an order's later rows
      // (a capture up to an hour on, its void up to 30 minutes after), which must fall on the same day.
      const t = dayMs + Math.floor(((emitted + rng.next()) * (DAY_MS - 5_400_000)) / perDay)
      const rows: Transaction[] = []
      if (past) {
        rows.push(kind === 'refund' ? refund(ctx, past, t, nextId(t)) : chargeback(ctx, past, t, nextId(t)))
      } else {
        const customer = newCustomer(rng)
        if (kind === 'echeck') toECheck(rng, customer)
        const amount = drawAmount(rng, customer.currency)
        // Orders of one row take the customer's fields as they are; longer ones copy them per row.
        const shared = kind === 'authCapture' || kind === 'voided'
        const base = (type: TransactionType, ms: number, decision: Decision = 'ACCEPT') => transaction(ctx, customer, type, nextId(ms), ms, amount, decision, shared)
        switch (kind) {
          case 'sale':
          case 'review': {
            const sale = base('sale', t, kind === 'review' ? 'REVIEW' : 'ACCEPT')
            if (kind === 'review' && !review(ctx, sale, t)) {
              rows.push(sale)
              break
            }
            settle(ctx, sale, customer)
            rows.push(sale)
            if (sale.batchId) settledToday.push({ requestId: sale.requestId, amount, currency: customer.currency, brand: customer.brand, day: d, fields: sale.fields })
            break
          }
          case 'authCapture':
          case 'voided': {
            const auth = base('authorization', t)
            const later = t + rng.int(60_000, 3_600_000)
            const capture = base('capture', later)
            link(capture, auth.requestId)
            rows.push(auth, capture)
            if (kind === 'voided') {
              const voidRow = base('void', later + rng.int(60_000, 1_800_000))
              link(voidRow, capture.requestId)
              rows.push(voidRow)
            } else {
              settle(ctx, capture, customer)
              if (capture.batchId) settledToday.push({ requestId: capture.requestId, amount, currency: customer.currency, brand: customer.brand, day: d, fields: capture.fields })
            }
            break
          }
          case 'echeck': {
            // Not remembered for refunds or chargebacks (ACH returns are not modelled).
            const sale = base('sale', t)
            settle(ctx, sale, customer)
            const notice = notificationOfChange(rng, sale.fields, t, ctx.endMs)
            if (notice) sale.fields['NotificationOfChange'] = notice
            rows.push(sale)
            break
          }
          case 'authOnly':
            rows.push(base('authorization', t))
            break
          case 'declined':
            rows.push(decline(rng, base('authorization', t)))
            break
          case 'dmReject': {
            const rejected = base('authorization', t, 'REJECT')
            reply(rejected, '0', '481', 'DREVIEW', 'The order has been rejected by Decision Manager.')
            rows.push(rejected)
            break
          }
          default: {
            const credit = base('credit', t)
            settle(ctx, credit, customer)
            rows.push(credit)
          }
        }
      }
      for (const row of rows) {
        if (emitted === perDay) break
        emitted++
        yield row
      }
    }
    for (const s of settledToday) remember(rng, ring, s)
  }
}

interface Context {
  rng: Random
  dayMs: number
  endMs: number
  orgCode: string
  organizationId: string
  day: number
}

function newCustomer(rng: Random): Customer {
  const brand = rng.weighted(BRANDS)
  const currency = rng.weighted(CURRENCIES)
  const first = rng.pick(FIRST_NAMES)
  const last = rng.pick(LAST_NAMES)
  const [city, state, zip] = rng.pick(currency.cities)
  const suffix = rng.digits(4)
  const fields: CatalogFields = {
    BillTo: { FirstName: first, LastName: last, Email: `${first}.${last.replace(/\W/g, '')}${rng.int(1, 999)}@example.com`.toLowerCase(), City: city, State: state, Zip: zip, Country: currency.country, Address1: `${rng.int(1, 999)} Main Street`, Phone: `+1${rng.digits(10)}` },
    ShipTo: { CompanyName: rng.chance(0.2) ? `${last} Holdings` : '' },
    PaymentMethod: { CardType: brand.cardType, AdditionalCardType: brand.code, AccountSuffix: suffix, ExpirationMonth: String(rng.int(1, 12)).padStart(2, '0'), ExpirationYear: String(rng.int(2027, 2032)) },
    PaymentData: { BinNumber: rng.pick(brand.bins), CurrencyCode: currency.code },
    PaymentFields: { CardScheme: brand.cardType, AccountSuffix: suffix },
    Risk: { Score: String(rng.int(0, 99)), ProductRisk: rng.pick(['low', 'normal', 'high']), IPCountry: currency.country },
  }
  if (!fields['ShipTo']!['CompanyName']) delete fields['ShipTo']
  if (rng.chance(0.25)) fields['Token'] = { TokenCode: rng.digits(16), NetworkTokenTransType: '1' }
  const [product, code, sku] = rng.pick(PRODUCTS)
  fields['LineItems'] = { ProductName: product, ProductCode: code, MerchantProductSku: sku, Quantity: String(rng.int(1, 3)) }
  fields['OrderFields'] = { MerchantReferenceNumber: `ORD-${rng.digits(8)}` }
  return { brand, currency, fields }
}

/** Amounts with cents (whole yen for JPY): mostly small, some large. */
function drawAmount(rng: Random, currency: Currency): string {
  const band = rng.weighted([[[100, 15_000], 70], [[15_000, 100_000], 25], [[100_000, 500_000], 5]] as const)
  let cents = BigInt(rng.int(band[0], band[1]))
  if (currency.code === 'JPY') return String(cents * 150n / 100n)
  if (rng.chance(0.2)) cents = (cents / 100n) * 100n + 99n
  return fromMinorUnits(cents, currency.scale)
}

function transaction(ctx: Context, customer: Customer, type: TransactionType, requestId: string, ms: number, amount: string, decision: Decision, copy = true): Transaction {
  const fields = copy ? copyFields(customer.fields) : customer.fields
  fields['Application'] = { Name: APPLICATIONS[type] }
  reply({ fields } as Transaction, '1', '100', 'SOK', 'Request was processed successfully.')
  if ((type === 'authorization' || type === 'sale') && customer.brand !== ECHECK) {
    Object.assign(fields['PaymentData']!, { AuthorizationCode: ctx.rng.digits(6), AVSResult: ctx.rng.pick(['Y', 'Y', 'Y', 'X', 'Z', 'N']), CVResult: 'M', ProcessorResponseCode: '00', AuthorizationType: 'O' })
  }
  fields['LineItems']!['UnitPrice'] = amount
  return { organizationId: ctx.organizationId, requestId, type, requestTime: new Date(ms).toISOString(), ...(customer.brand.subtype ? { paymentSubtype: customer.brand.subtype } : {}), currency: customer.currency.code, amount, decision, fields }
}

function copyFields(fields: CatalogFields): CatalogFields {
  const out: CatalogFields = {}
  for (const group in fields) out[group] = { ...fields[group] }
  return out
}

function reply(t: Transaction, rcode: string, reasonCode: string, rflag: string, rmsg: string): void {
  Object.assign((t.fields['Application'] ??= {}), { Rcode: rcode, ReasonCode: reasonCode, Rflag: rflag, Rmsg: rmsg })
  ;(t.fields['OrderFields'] ??= {})['ReasonCode'] = reasonCode
}

function link(t: Transaction, requestId: string): void {
  ;(t.fields['Request'] ??= {})['LinkedRequestID'] = requestId
}

function decline(rng: Random, t: Transaction): Transaction {
  const [code, flag, message] = rng.pick(DECLINES)
  reply(t, '0', code, flag, message)
  delete t.fields['PaymentData']!['AuthorizationCode']
  t.fields['PaymentData']!['ProcessorResponseCode'] = code === '204' ? '51' : '05'
  t.fields['Exception'] = { ExceptionCategory: 'Decline', ExceptionReasonDescription: message, ReasonCode: code, ExceptionStatus: 'Closed', ProcessorResponseCode: t.fields['PaymentData']!['ProcessorResponseCode']! }
  return t
}

/** A Decision Manager review; returns false when the reviewer rejected the order (it is then never settled). */
function review(ctx: Context, t: Transaction, ms: number): boolean {
  const { rng } = ctx
  const accepted = rng.chance(0.8)
  const newDecision = accepted ? 'ACCEPT' : 'REJECT'
  t.fields['Conversion'] = {
    ConversionDate: new Date(ms + rng.int(600_000, 2 * DAY_MS)).toISOString(),
    OriginalDecision: 'REVIEW',
    NewDecision: newDecision,
    Reviewer: rng.pick(REVIEWERS),
    ReviewerComments: rng.pick(REVIEW_COMMENTS[newDecision]),
    Queue: rng.pick(REVIEW_QUEUES),
    Profile: rng.pick(REVIEW_PROFILES),
  }
  t.fields['DecisionManagerEvents'] = { EventPolicy: 'Review', TypeofEvent: accepted ? 'Accept' : 'Reject' }
  return accepted
}

function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Puts a transaction into its daily batch, settles it in USD with fees, and funds it when that day has come. */
function settle(ctx: Context, t: Transaction, customer: Customer): void {
  const requestMs = Date.parse(t.requestTime)
  const batchDayMs = ctx.dayMs + (requestMs - ctx.dayMs >= BATCH_CUTOFF_MS ? DAY_MS : 0)
  // The last day's batch has not closed yet: its transactions are pending.
  if (batchDayMs >= ctx.endMs) return
  const batchDate = dateOf(batchDayMs)
  t.batchId = `${ctx.orgCode}${batchDate.replaceAll('-', '')}`
  t.submissionTime = new Date(batchDayMs + BATCH_CUTOFF_MS).toISOString()
  const settlementAmount = multiply(t.amount, customer.currency.rate, 2)
  t.settlementCurrency = SETTLEMENT_CURRENCY
  t.settlementAmount = settlementAmount
  const settlementDate = dateOf(batchDayMs + DAY_MS)
  t.fields['Settlement'] = { SettlementDate: settlementDate, Status: 'S', SourceResponseCode: '00' }
  // The processor's reference for the settled request and the merchant's id at the processor, derived rather than
  // drawn, so the random sequence (and every other row of a seed) stays as it was.
  Object.assign(t.fields['PaymentData']!, { TransactionReferenceNumber: referenceNumber(t.requestId), ProcessorMID: `${ctx.orgCode}00${ctx.orgCode}` })
  t.fields['Batch'] = { BatchDate: batchDate, Status: 'Completed', SuccessFlag: 'Y' }
  if (customer.currency.code !== SETTLEMENT_CURRENCY) Object.assign(t.fields['PaymentData']!, { ExchangeRate: customer.currency.rate, ExchangeRateDate: batchDate, OriginalAmount: t.amount, OriginalCurrency: t.currency })
  let funding = settlementAmount
  if (t.type === 'sale' || t.type === 'capture') {
    const brand = customer.brand
    const discount = multiply(settlementAmount, brand.discountFraction, 4)
    const interchange = multiply(settlementAmount, brand.interchangeFraction, 4)
    const assessment = multiply(settlementAmount, '0.0013', 4)
    const total = sumDecimals([discount, '0.1000'])
    t.fields['Fee'] = {
      BillingType: 'discount',
      BillingCycle: 'daily',
      DiscountRate: brand.discountRate,
      DiscountAmount: discount,
      DiscountCurrency: SETTLEMENT_CURRENCY,
      InterchangeRate: brand.interchangeRate,
      InterchangeAmount: interchange,
      InterchangeCurrency: SETTLEMENT_CURRENCY,
      AssessmentAmount: assessment,
      AssessmentCurrency: SETTLEMENT_CURRENCY,
      PerItemFeeAmount: '0.1000',
      PerItemFeeCurrency: SETTLEMENT_CURRENCY,
      TotalFeeAmount: total,
      TotalFeeCurrency: SETTLEMENT_CURRENCY,
      SettlementAmount: settlementAmount,
      SettlementCurrency: SETTLEMENT_CURRENCY,
      SettlementTime: t.submissionTime,
      SettlementTimeZone: 'GMT',
    }
    funding = subtract(settlementAmount, total)
  }
  fund(ctx, t, batchDayMs + (2 + customer.brand.fundingLag) * DAY_MS, funding)
}

function referenceNumber(requestId: string): string {
  return (hash32(requestId).toString(36) + hash32(`${requestId}:ref`).toString(36)).toUpperCase().padStart(12, '0').slice(-12)
}

function fund(ctx: Context, t: Transaction, fundingMs: number, amount: string): void {
  if (fundingMs > ctx.endMs) return
  t.fundingDate = dateOf(fundingMs)
  t.fields['Funding'] = { FundingAmount: amount, FundingCurrency: SETTLEMENT_CURRENCY, Status: 'S' }
  t.fields['Deposit'] = { Identifier: `DEP${ctx.orgCode}${t.fundingDate.replaceAll('-', '')}`, Status: 'S', Currency: SETTLEMENT_CURRENCY, Method: 'ACH' }
}

function pickPast(rng: Random, ring: readonly Settled[], maxDay: number): Settled | undefined {
  for (let attempt = 0; attempt < 4 && ring.length > 0; attempt++) {
    const candidate = ring[rng.int(0, ring.length - 1)]!
    if (candidate.day <= maxDay) return candidate
  }
  return undefined
}

function remember(rng: Random, ring: Settled[], settled: Settled): void {
  if (ring.length < RING_SIZE) ring.push(settled)
  else ring[rng.int(0, RING_SIZE - 1)] = settled
}

function customerOf(past: Settled): Customer {
  return { brand: past.brand, currency: past.currency, fields: past.fields }
}

function refund(ctx: Context, past: Settled, ms: number, requestId: string): Transaction {
  const customer = customerOf(past)
  // Half are full refunds, the rest a part of the amount.
  const amount = ctx.rng.chance(0.5) ? past.amount : multiply(past.amount, `0.${ctx.rng.int(10, 90)}`, past.currency.scale)
  const t = transaction(ctx, customer, 'refund', requestId, ms, amount, 'ACCEPT')
  for (const group of ['Settlement', 'Batch', 'Fee', 'Funding', 'Deposit', 'Conversion', 'DecisionManagerEvents']) delete t.fields[group]
  link(t, past.requestId)
  settle(ctx, t, customer)
  return t
}

function chargeback(ctx: Context, past: Settled, ms: number, requestId: string): Transaction {
  const { rng } = ctx
  const customer = customerOf(past)
  const t = transaction(ctx, customer, 'chargeback', requestId, ms, past.amount, 'ACCEPT')
  for (const group of ['Settlement', 'Batch', 'Fee', 'Funding', 'Deposit', 'Conversion', 'DecisionManagerEvents']) delete t.fields[group]
  link(t, past.requestId)
  const [code, description] = rng.pick(CHARGEBACK_REASONS[past.brand.subtype] ?? CHARGEBACK_REASONS['VI']!)
  const time = new Date(ms).toISOString()
  t.fields['ChargebackAndRetrieval'] = {
    CaseNumber: rng.digits(10),
    CaseIdentifier: past.requestId,
    CaseType: 'Chargeback',
    CaseTime: time,
    ChargebackTime: time,
    ChargebackAmount: past.amount,
    ChargebackCurrency: past.currency.code,
    ChargebackReasonCode: code,
    ChargebackReasonCodeDescription: description,
    ChargebackMessage: 'First chargeback',
    ARN: rng.digits(23),
    DocumentIndicator: rng.pick(['Y', 'N']),
    FeeAmount: '15.00',
    FeeCurrency: SETTLEMENT_CURRENCY,
    FinancialImpact: 'Y',
    FinancialImpactType: 'debit',
    MerchantCategoryCode: '5999',
    PartialIndicator: 'N',
    RespondByDate: dateOf(ms + 20 * DAY_MS),
    TransactionType: 'Purchase',
  }
  t.settlementCurrency = SETTLEMENT_CURRENCY
  t.settlementAmount = multiply(past.amount, past.currency.rate, 2)
  fund(ctx, t, ctx.dayMs + 2 * DAY_MS, t.settlementAmount)
  return t
}
