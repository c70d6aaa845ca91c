// Wire schemas of the on-demand reports: the query of each (validation and OpenAPI) and its JSON body, as
// allow-lists with the keys of the reference document and the official SDK's models
// (ReportingV3PurchaseRefundDetailsGet200Response, ReportingV3NetFundingsGet200Response, …).
import { Type, type Static, type TSchema } from 'typebox'
import { ORGANIZATION_ID_PARAM } from '../../merchant-api/gateway.js'
import { TIME_PATTERN } from './window.js'

const Time = (which: string) => Type.String({ pattern: TIME_PATTERN, maxLength: 40, description: `Report ${which} time, ISO 8601 with a zone (yyyy-MM-dd'T'HH:mm:ss.SSSZ), e.g. 2026-03-01T00:00:00.000Z` })
const Window = { startTime: Time('start (inclusive)'), endTime: Time('end (exclusive)'), organizationId: Type.Optional(ORGANIZATION_ID_PARAM) }
const GroupName = Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-zA-Z0-9_\\- ]+$', description: 'A group of organizations; accepted and echoed in requestDetails (groups are not modelled: it does not filter)' })
const Text = (description?: string) => Type.Optional(Type.String(description ? { description } : {}))
const DateTime = (description?: string) => Type.Optional(Type.String({ format: 'date-time', ...(description ? { description } : {}) }))
const Amount = (description?: string) => Type.Optional(Type.String({ description: `${description ?? 'Amount'}: exact decimal text` }))

export const PAYMENT_SUBTYPES = ['ALL', 'VI', 'MC', 'AX', 'DI', 'DP'] as const
export const VIEW_BY = ['requestDate', 'submissionDate'] as const
export const ROLL_UPS = ['day', 'week', 'month'] as const
export const BREAKDOWNS = ['account_rollup', 'all_merchant', 'selected_merchant'] as const
export const MAX_LIMIT = 2000

export const DetailsQuery = Type.Object({
  ...Window,
  paymentSubtype: Type.Optional(Type.Enum([...PAYMENT_SUBTYPES], { default: 'ALL', description: 'ALL, VI (Visa), MC (Mastercard), AX (American Express), DI (Discover), DP (PINless debit)' })),
  viewBy: Type.Optional(Type.Enum([...VIEW_BY], { default: 'requestDate', description: 'The window applies to the request time or to the submission (batch) time' })),
  groupName: Type.Optional(GroupName),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: 'Zero-based index of the first request of the page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: MAX_LIMIT, description: 'Requests per page (requestDetails entries), 1 to 2000' })),
})
export type DetailsQuery = Static<typeof DetailsQuery>

export const FundingsQuery = Type.Object({ ...Window, groupName: Type.Optional(GroupName) })
export type FundingsQuery = Static<typeof FundingsQuery>

export const SummariesQuery = Type.Object({
  ...Window,
  rollUp: Type.Optional(Type.Enum([...ROLL_UPS], { description: 'Periods of a day, week or month (UTC); with breakdown' })),
  breakdown: Type.Optional(Type.Enum([...BREAKDOWNS], { description: 'account_rollup: per account; all_merchant: every merchant below the caller; selected_merchant: the merchant named by organizationId. With rollUp' })),
  startDayOfWeek: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: 'First day of a week for rollUp=week: 1 = Sunday … 7 = Saturday (default 1)' })),
})
export type SummariesQuery = Static<typeof SummariesQuery>

export const WindowQuery = Type.Object(Window)
export type WindowQuery = Static<typeof WindowQuery>

const RequestDetail = Type.Object({
  requestId: Type.String(),
  cybersourceMerchantId: Type.String({ description: 'The merchant (organization) id' }),
  processorMerchantId: Text(),
  groupName: Text('The groupName of the query'),
  transactionReferenceNumber: Text(),
  merchantReferenceNumber: Text(),
})
const Settlement = Type.Object({
  requestId: Type.String(),
  transactionType: Type.String({ description: 'Purchases or Refunds' }),
  submissionTime: DateTime(),
  amount: Amount(),
  currencyCode: Text(),
  paymentMethod: Text('VISA, MASTERCARD, AMERICAN EXPRESS, DISCOVER, PINLESS DEBIT, ECHECK'),
  walletType: Text(),
  paymentType: Text('credit card, debit card or check'),
  accountSuffix: Text(),
  cybersourceBatchTime: DateTime(),
  cybersourceBatchId: Text(),
  cardType: Text(),
  debitNetwork: Text(),
})
const Authorization = Type.Object({
  requestId: Type.String(),
  transactionReferenceNumber: Text(),
  time: DateTime('Authorization time'),
  authorizationRequestId: Text(),
  amount: Amount('Authorized amount'),
  currencyCode: Text(),
  code: Text('Authorization code'),
  rcode: Text(),
})
const FeeAndFunding = Type.Object({
  requestId: Type.String(),
  interchangePerItemFee: Amount(),
  interchangeDescription: Text(),
  interchangePercentage: Text(),
  interchangePercentageAmount: Amount(),
  discountPercentage: Text(),
  discountAmount: Amount(),
  discountPerItemFee: Amount(),
  totalFee: Amount(),
  feeCurrency: Text(),
  duesAssessments: Amount(),
  fundingAmount: Amount(),
  fundingCurrency: Text(),
})
const Other = Type.Object({
  requestId: Type.String(),
  merchantData1: Text(),
  merchantData2: Text(),
  merchantData3: Text(),
  merchantData4: Text(),
  firstName: Text(),
  lastName: Text(),
})
const SettlementStatus = Type.Object({ requestId: Type.String(), status: Text('Settled, Pending or Failed'), settlementTime: DateTime(), reasonCode: Text(), errorText: Text() })

export const PurchaseRefundDetails = Type.Object(
  {
    offset: Type.Integer(),
    limit: Type.Integer(),
    pageResults: Type.Integer({ description: 'requestDetails entries in this page; 0 past the end, where no detail array is given' }),
    requestDetails: Type.Optional(Type.Array(RequestDetail)),
    settlements: Type.Optional(Type.Array(Settlement)),
    authorizations: Type.Optional(Type.Array(Authorization)),
    feeAndFundingDetails: Type.Optional(Type.Array(FeeAndFunding)),
    others: Type.Optional(Type.Array(Other)),
    settlementStatuses: Type.Optional(Type.Array(SettlementStatus)),
  },
  { description: 'One page of submitted purchases (sales, captures) and refunds (refunds, credits)' },
)
export type PurchaseRefundDetails = Static<typeof PurchaseRefundDetails>
export type RequestDetail = Static<typeof RequestDetail>
export type SettlementEntry = Static<typeof Settlement>
export type AuthorizationEntry = Static<typeof Authorization>
export type FeeAndFundingEntry = Static<typeof FeeAndFunding>
export type OtherEntry = Static<typeof Other>
export type SettlementStatusEntry = Static<typeof SettlementStatus>

const CurrencyAmount = Type.Object({ currency: Type.String(), value: Type.String({ description: 'Exact decimal text' }) })
export const NetFundings = Type.Object({
  startTime: Type.String({ format: 'date-time' }),
  endTime: Type.String({ format: 'date-time' }),
  netFundingSummaries: Type.Array(
    Type.Object({
      type: Type.String({ enum: ['PURCHASES', 'REFUNDS', 'FEES', 'CHARGEBACKS'] }),
      paymentSubType: Type.String({ description: 'VI, MC, AX, DI, DP; empty for eCheck' }),
      conveyedCount: Type.Integer(),
      conveyedAmount: Type.String(),
      settledCount: Type.Integer(),
      fundedCount: Type.Integer(),
      fundedAmount: Type.String(),
      currencyCode: Type.String(),
    }),
  ),
  totalPurchases: Type.Array(CurrencyAmount),
  totalRefunds: Type.Array(CurrencyAmount),
  totalFees: Type.Array(CurrencyAmount),
  totalChargebacks: Type.Array(CurrencyAmount),
  netTotal: Type.Array(CurrencyAmount, { description: 'Funded purchases − refunds − fees − chargebacks, per currency' }),
})
export type NetFundings = Static<typeof NetFundings>

const BatchSummary = Type.Object({
  currencyCode: Type.String(),
  paymentSubTypeDescription: Type.String(),
  startTime: Type.String({ format: 'date-time' }),
  endTime: Type.String({ format: 'date-time' }),
  salesCount: Type.Integer(),
  salesAmount: Type.String(),
  creditCount: Type.Integer(),
  creditAmount: Type.String(),
  accountName: Text(),
  accountId: Text(),
  merchantId: Text(),
  merchantName: Text(),
})
export type BatchSummary = Static<typeof BatchSummary>
export const PaymentBatchSummaries = Type.Object({ startTime: Type.String({ format: 'date-time' }), endTime: Type.String({ format: 'date-time' }), paymentBatchSummaries: Type.Array(BatchSummary) })
export type PaymentBatchSummaries = Static<typeof PaymentBatchSummaries>

const Note = Type.Object({ time: DateTime(), addedBy: Text(), comments: Text() })
const Conversion = Type.Object({
  merchantReferenceNumber: Text(),
  conversionTime: DateTime(),
  requestId: Type.String(),
  originalDecision: Text(),
  newDecision: Text(),
  reviewer: Text(),
  reviewerComments: Text(),
  queue: Text(),
  profile: Text(),
  notes: Type.Optional(Type.Array(Note)),
})
export type ConversionEntry = Static<typeof Conversion>
export const ConversionDetails = Type.Object({ organizationId: Type.String(), startTime: Type.String({ format: 'date-time' }), endTime: Type.String({ format: 'date-time' }), conversionDetails: Type.Array(Conversion) })

const Notice = Type.Object({
  merchantReferenceNumber: Text(),
  transactionReferenceNumber: Text(),
  time: DateTime(),
  code: Text('The ACH change code, e.g. C01 (account number corrected)'),
  accountType: Text(),
  routingNumber: Text(),
  accountNumber: Text('Masked but for the last four digits'),
  consumerName: Text(),
})
export type NoticeEntry = Static<typeof Notice>
export const NotificationOfChanges = Type.Object({ notificationOfChanges: Type.Array(Notice) })
export type NotificationOfChanges = Static<typeof NotificationOfChanges>

/** A 200 in each format a report is written in (JSON under both labels). */
export function okContent(body: TSchema, text: { csv?: string; xml?: string } = {}) {
  const json = { schema: body }
  return {
    description: 'Ok',
    content: {
      'application/json': json,
      'application/hal+json': json,
      ...(text.csv ? { 'text/csv': { schema: Type.String({ description: text.csv }) } } : {}),
      ...(text.xml ? { 'application/xml': { schema: Type.String({ description: text.xml }) } } : {}),
    },
  }
}
