// A page of purchase and refund details from stored rows: the six sections of the reference's body (one
// requestDetails entry per request; the others where the request has that data), and the same page as CSV (one
// record per request) or XML (one Request element per request). Pure.
import type { CatalogFields } from '../transactions/catalog.js'
import { PURCHASE_TYPES } from '../transactions/tallies.js'
import { csvLine, xmlAttributes, xmlEmpty, xmlMembers, XML_DECLARATION } from './formats.js'
import { paymentMethodOf } from './payment-methods.js'
import type { StoredRow } from './repository.js'
import type { AuthorizationEntry, FeeAndFundingEntry, OtherEntry, PurchaseRefundDetails, RequestDetail, SettlementEntry, SettlementStatusEntry } from './schemas.js'

export interface DetailContext {
  organizationId: string
  groupName: string | undefined
  offset: number
  limit: number
}

/** One request of the page with all its sections (undefined where it has none). */
export interface DetailEntry {
  request: RequestDetail
  settlement: SettlementEntry | undefined
  authorization: AuthorizationEntry | undefined
  feeAndFunding: FeeAndFundingEntry | undefined
  other: OtherEntry | undefined
  settlementStatus: SettlementStatusEntry | undefined
}

/** A row with its fields parsed. */
export interface ParsedRow {
  row: StoredRow
  fields: CatalogFields
}

export const parse = (row: StoredRow): ParsedRow => ({ row, fields: JSON.parse(row.fields) as CatalogFields })

const SETTLEMENT_STATUS: Readonly<Record<string, string>> = { S: 'Settled', P: 'Pending', F: 'Failed' }

/** Only the members that have a value, so absent data is absent rather than null. */
export function present<T extends object>(entry: T): T {
  for (const key of Object.keys(entry) as (keyof T)[]) if (entry[key] === undefined) delete entry[key]
  return entry
}

/** The entry of one request; `authorizations` are the rows captures name in Request.LinkedRequestID. */
export function detailEntry(p: ParsedRow, authorizations: ReadonlyMap<string, ParsedRow>, ctx: DetailContext): DetailEntry {
  const { row, fields: f } = p
  const requestId = row.request_id
  const data = f['PaymentData'] ?? {}
  const method = paymentMethodOf(row.payment_subtype)
  const request = present<RequestDetail>({
    requestId,
    cybersourceMerchantId: row.organization_id,
    processorMerchantId: data['ProcessorMID'],
    groupName: ctx.groupName,
    transactionReferenceNumber: data['TransactionReferenceNumber'],
    merchantReferenceNumber: f['OrderFields']?.['MerchantReferenceNumber'],
  })
  const purchase = PURCHASE_TYPES.includes(row.type)
  const settlement =
    row.submission_time === null
      ? undefined
      : present<SettlementEntry>({
          requestId,
          transactionType: purchase ? 'Purchases' : 'Refunds',
          submissionTime: row.submission_time,
          amount: row.amount,
          currencyCode: row.currency,
          paymentMethod: method.paymentMethod,
          walletType: f['PaymentMethod']?.['WalletType'],
          paymentType: method.paymentType,
          accountSuffix: f['PaymentMethod']?.['AccountSuffix'],
          cybersourceBatchTime: row.submission_time,
          cybersourceBatchId: row.batch_id ?? undefined,
          cardType: data['CardCategory'],
        })
  const linked = row.type === 'capture' ? authorizations.get(f['Request']?.['LinkedRequestID'] ?? '') : row.type === 'sale' ? p : undefined
  const code = linked?.fields['PaymentData']?.['AuthorizationCode']
  const authorization =
    linked === undefined || code === undefined
      ? undefined
      : present<AuthorizationEntry>({
          requestId,
          transactionReferenceNumber: data['TransactionReferenceNumber'],
          time: linked.row.request_time,
          authorizationRequestId: linked.row.request_id,
          amount: linked.row.amount,
          currencyCode: linked.row.currency,
          code,
          rcode: linked.fields['Application']?.['Rcode'],
        })
  const fee = f['Fee']
  const funding = f['Funding']
  const feeAndFunding =
    fee === undefined && funding === undefined
      ? undefined
      : present<FeeAndFundingEntry>({
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
        })
  const defined = f['Merchant-DefinedDataFields'] ?? {}
  const other = present<OtherEntry>({
    requestId,
    merchantData1: defined['MerchantDefinedData1'],
    merchantData2: defined['MerchantDefinedData2'],
    merchantData3: defined['MerchantDefinedData3'],
    merchantData4: defined['MerchantDefinedData4'],
    firstName: f['BillTo']?.['FirstName'],
    lastName: f['BillTo']?.['LastName'],
  })
  const settled = f['Settlement']
  const settlementStatus =
    settled === undefined
      ? undefined
      : present<SettlementStatusEntry>({
          requestId,
          status: SETTLEMENT_STATUS[settled['Status'] ?? ''] ?? settled['Status'],
          settlementTime: settled['SettlementDate'] ? `${settled['SettlementDate']}T00:00:00.000Z` : undefined,
          reasonCode: settled['SourceResponseCode'],
          errorText: settled['SourceResponseMessage'],
        })
  return { request, settlement, authorization, feeAndFunding, other: Object.keys(other).length > 1 ? other : undefined, settlementStatus }
}

/** The JSON body of a page; past the end (no entries) the paging fields alone. */
export function detailsJson(entries: readonly DetailEntry[], ctx: DetailContext): PurchaseRefundDetails {
  const page: PurchaseRefundDetails = { offset: ctx.offset, limit: ctx.limit, pageResults: entries.length }
  if (entries.length === 0) return page
  const pick = <K extends keyof DetailEntry>(key: K) => entries.flatMap((e) => (e[key] === undefined ? [] : [e[key] as NonNullable<DetailEntry[K]>]))
  return {
    ...page,
    requestDetails: pick('request'),
    settlements: pick('settlement'),
    authorizations: pick('authorization'),
    feeAndFundingDetails: pick('feeAndFunding'),
    others: pick('other'),
    settlementStatuses: pick('settlementStatus'),
  }
}

/** CSV columns: each section's members, requestId once; authorization members prefixed where names repeat. */
const CSV_COLUMNS: readonly (readonly [string, (e: DetailEntry) => string | undefined])[] = [
  ...(['requestId', 'cybersourceMerchantId', 'processorMerchantId', 'groupName', 'transactionReferenceNumber', 'merchantReferenceNumber'] as const).map((k) => [k, (e: DetailEntry) => e.request[k]] as const),
  ...(['transactionType', 'submissionTime', 'amount', 'currencyCode', 'paymentMethod', 'walletType', 'paymentType', 'accountSuffix', 'cybersourceBatchTime', 'cybersourceBatchId', 'cardType', 'debitNetwork'] as const).map(
    (k) => [k, (e: DetailEntry) => e.settlement?.[k]] as const,
  ),
  ...(['authorizationRequestId', 'time', 'amount', 'currencyCode', 'code', 'rcode'] as const).map(
    (k) => [k === 'authorizationRequestId' ? k : `authorization${k[0]!.toUpperCase()}${k.slice(1)}`, (e: DetailEntry) => e.authorization?.[k]] as const,
  ),
  ...(['interchangePerItemFee', 'interchangeDescription', 'interchangePercentage', 'interchangePercentageAmount', 'discountPercentage', 'discountAmount', 'discountPerItemFee', 'totalFee', 'feeCurrency', 'duesAssessments', 'fundingAmount', 'fundingCurrency'] as const).map(
    (k) => [k, (e: DetailEntry) => e.feeAndFunding?.[k]] as const,
  ),
  ...(['merchantData1', 'merchantData2', 'merchantData3', 'merchantData4', 'firstName', 'lastName'] as const).map((k) => [k, (e: DetailEntry) => e.other?.[k]] as const),
  ...(['status', 'settlementTime', 'reasonCode', 'errorText'] as const).map((k) => [k === 'status' ? 'settlementStatus' : k, (e: DetailEntry) => e.settlementStatus?.[k]] as const),
]

export const DETAILS_CSV_HEADER = csvLine(CSV_COLUMNS.map(([name]) => name))

export function detailCsvLine(entry: DetailEntry): string {
  return csvLine(CSV_COLUMNS.map(([, value]) => value(entry)))
}

export function detailsXmlOpen(ctx: DetailContext & { startTime: string; endTime: string; pageResults: number }): string {
  const attributes = { Name: 'Purchase and Refund Details', Version: '1.0', MerchantID: ctx.organizationId, ReportStartDate: ctx.startTime, ReportEndDate: ctx.endTime, Offset: ctx.offset, Limit: ctx.limit, PageResults: ctx.pageResults }
  return `${XML_DECLARATION}<Report${xmlAttributes(attributes)}>\n<Requests>\n`
}

export const DETAILS_XML_CLOSE = '</Requests>\n</Report>\n'

export function detailXml(e: DetailEntry): string {
  const { requestId, ...request } = e.request
  const inner = (name: string, section: { requestId: string } | undefined) => {
    if (section === undefined) return ''
    const { requestId: _, ...members } = section
    return xmlEmpty(name, members)
  }
  return (
    `<Request${xmlAttributes({ RequestID: requestId })}${xmlMembers(request)}>` +
    inner('Settlement', e.settlement) +
    inner('Authorization', e.authorization) +
    inner('FeeAndFunding', e.feeAndFunding) +
    inner('Other', e.other) +
    inner('SettlementStatus', e.settlementStatus) +
    '</Request>\n'
  )
}
