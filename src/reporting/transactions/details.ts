// A submitted purchase or refund as the purchase and refund details report lists it: its six sections (request,
// settlement, authorization, fee and funding, other, settlement status) with the reference's member names,
// computed once when the transaction is stored and kept rendered (transaction_details, migration 0015). A page of
// 2,000 is then read as 2,000 short texts put side by side, instead of 2,000 transactions' whole `fields` parsed,
// mapped and serialized on every call. Pure.
import type { Transaction } from './catalog.js'
import { paymentMethodOf } from './payment-methods.js'
import { isDetail, PURCHASE_TYPES } from './tallies.js'

type Text = string | undefined

export interface RequestSection {
  requestId: string
  cybersourceMerchantId: string
  processorMerchantId?: Text
  groupName?: Text
  transactionReferenceNumber?: Text
  merchantReferenceNumber?: Text
}
export interface SettlementSection {
  requestId: string
  transactionType: string
  submissionTime?: Text
  amount?: Text
  currencyCode?: Text
  paymentMethod?: Text
  walletType?: Text
  paymentType?: Text
  accountSuffix?: Text
  cybersourceBatchTime?: Text
  cybersourceBatchId?: Text
  cardType?: Text
  debitNetwork?: Text
}
export interface AuthorizationSection {
  requestId: string
  transactionReferenceNumber?: Text
  time?: Text
  authorizationRequestId?: Text
  amount?: Text
  currencyCode?: Text
  code?: Text
  rcode?: Text
}
export interface FeeAndFundingSection {
  requestId: string
  interchangePerItemFee?: Text
  interchangeDescription?: Text
  interchangePercentage?: Text
  interchangePercentageAmount?: Text
  discountPercentage?: Text
  discountAmount?: Text
  discountPerItemFee?: Text
  totalFee?: Text
  feeCurrency?: Text
  duesAssessments?: Text
  fundingAmount?: Text
  fundingCurrency?: Text
}
export interface OtherSection {
  requestId: string
  merchantData1?: Text
  merchantData2?: Text
  merchantData3?: Text
  merchantData4?: Text
  firstName?: Text
  lastName?: Text
}
export interface SettlementStatusSection {
  requestId: string
  status?: Text
  settlementTime?: Text
  reasonCode?: Text
  errorText?: Text
}

/** One request with its sections; a section the request has no data for is undefined. */
export interface DetailSections {
  request: RequestSection
  settlement: SettlementSection | undefined
  authorization: AuthorizationSection | undefined
  feeAndFunding: FeeAndFundingSection | undefined
  other: OtherSection | undefined
  settlementStatus: SettlementStatusSection | undefined
}

export const SECTIONS = ['request', 'settlement', 'authorization', 'feeAndFunding', 'other', 'settlementStatus'] as const

// A Map: the status is imported text, which a plain object would answer for `toString` or `constructor`.
const SETTLEMENT_STATUS: ReadonlyMap<string, string> = new Map([['S', 'Settled'], ['P', 'Pending'], ['F', 'Failed']])

/**
 * The sections of a submitted purchase or refund (undefined for any other transaction). `authorization` is the
 * transaction a capture names in Request.LinkedRequestID, when it is known; a sale is its own authorization.
 * Absent members are left undefined, which JSON leaves out.
 */
export function detailSections(t: Transaction, authorization?: Transaction): DetailSections | undefined {
  if (!isDetail(t)) return undefined
  const f = t.fields
  const requestId = t.requestId
  const data = f['PaymentData'] ?? {}
  const method = paymentMethodOf(t.paymentSubtype)
  const request: RequestSection = {
    requestId,
    cybersourceMerchantId: t.organizationId,
    processorMerchantId: data['ProcessorMID'],
    transactionReferenceNumber: data['TransactionReferenceNumber'],
    merchantReferenceNumber: f['OrderFields']?.['MerchantReferenceNumber'],
  }
  const settlement: SettlementSection = {
    requestId,
    transactionType: PURCHASE_TYPES.includes(t.type) ? 'Purchases' : 'Refunds',
    submissionTime: t.submissionTime,
    amount: t.amount,
    currencyCode: t.currency,
    paymentMethod: method.paymentMethod,
    walletType: f['PaymentMethod']?.['WalletType'],
    paymentType: method.paymentType,
    accountSuffix: f['PaymentMethod']?.['AccountSuffix'],
    cybersourceBatchTime: t.submissionTime,
    cybersourceBatchId: t.batchId,
    cardType: data['CardCategory'],
  }
  const authorized = t.type === 'sale' ? t : t.type === 'capture' ? authorization : undefined
  const code = authorized?.fields['PaymentData']?.['AuthorizationCode']
  const fee = f['Fee']
  const funding = f['Funding']
  const defined = f['Merchant-DefinedDataFields'] ?? {}
  const other: OtherSection = {
    requestId,
    merchantData1: defined['MerchantDefinedData1'],
    merchantData2: defined['MerchantDefinedData2'],
    merchantData3: defined['MerchantDefinedData3'],
    merchantData4: defined['MerchantDefinedData4'],
    firstName: f['BillTo']?.['FirstName'],
    lastName: f['BillTo']?.['LastName'],
  }
  const settled = f['Settlement']
  return {
    request,
    settlement,
    authorization:
      authorized === undefined || code === undefined
        ? undefined
        : {
            requestId,
            transactionReferenceNumber: data['TransactionReferenceNumber'],
            time: authorized.requestTime,
            authorizationRequestId: authorized.requestId,
            amount: authorized.amount,
            currencyCode: authorized.currency,
            code,
            rcode: authorized.fields['Application']?.['Rcode'],
          },
    feeAndFunding:
      fee === undefined && funding === undefined
        ? undefined
        : {
            requestId,
            interchangePercentage: fee?.['InterchangeRate'],
            interchangePercentageAmount: fee?.['InterchangeAmount'],
            discountPercentage: fee?.['DiscountRate'],
            discountAmount: fee?.['DiscountAmount'],
            discountPerItemFee: fee?.['PerItemFeeAmount'],
            totalFee: fee?.['TotalFeeAmount'],
            feeCurrency: fee?.['TotalFeeCurrency'],
            duesAssessments: fee?.['AssessmentAmount'],
            fundingAmount: funding?.['FundingAmount'],
            fundingCurrency: funding?.['FundingCurrency'],
          },
    other: Object.values(other).filter((v) => v !== undefined).length > 1 ? other : undefined,
    settlementStatus:
      settled === undefined
        ? undefined
        : {
            requestId,
            status: SETTLEMENT_STATUS.get(settled['Status'] ?? '') ?? settled['Status'],
            settlementTime: settled['SettlementDate'] ? `${settled['SettlementDate']}T00:00:00.000Z` : undefined,
            reasonCode: settled['SourceResponseCode'],
            errorText: settled['SourceResponseMessage'],
          },
  }
}

/**
 * The sections as stored: one line of JSON per section in SECTIONS order, an empty line for one the request does
 * not have. JSON text never holds a raw line break, so the lines split back exactly.
 */
export function renderSections(sections: DetailSections): string {
  return SECTIONS.map((name) => (sections[name] === undefined ? '' : JSON.stringify(sections[name]))).join('\n')
}

/** The linked authorizations a batch of transactions needs (by request id), for detailSections. */
export function linkedAuthorizationIds(transactions: readonly Transaction[]): string[] {
  return transactions.flatMap((t) => (t.type === 'capture' && isDetail(t) && t.fields['Request']?.['LinkedRequestID'] ? [t.fields['Request']['LinkedRequestID']] : []))
}
