// A page of purchase and refund details from the stored detail rows (reporting/transactions/details.ts): the JSON
// body put together from the rows' rendered sections as they are, and the same page as CSV (one record per
// request) or XML (one Request element per request) from the sections read back. Pure.
import { SECTIONS, type DetailSections } from '../transactions/details.js'
import { csvLine, xmlAttributes, xmlEmpty, xmlMembers, XML_DECLARATION } from './formats.js'
import type { AuthorizationEntry, FeeAndFundingEntry, OtherEntry, RequestDetail, SettlementEntry, SettlementStatusEntry } from './schemas.js'

export interface DetailContext {
  organizationId: string
  groupName: string | undefined
  offset: number
  limit: number
}

// The stored sections are the wire's entries: the compiler holds the two descriptions together.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
const sameShape: [
  Same<DetailSections['request'], RequestDetail>,
  Same<NonNullable<DetailSections['settlement']>, SettlementEntry>,
  Same<NonNullable<DetailSections['authorization']>, AuthorizationEntry>,
  Same<NonNullable<DetailSections['feeAndFunding']>, FeeAndFundingEntry>,
  Same<NonNullable<DetailSections['other']>, OtherEntry>,
  Same<NonNullable<DetailSections['settlementStatus']>, SettlementStatusEntry>,
] = [true, true, true, true, true, true]
void sameShape

/** The body's array of each section, in the reference's order. */
const ARRAYS = ['requestDetails', 'settlements', 'authorizations', 'feeAndFundingDetails', 'others', 'settlementStatuses'] as const

/**
 * The JSON body of a page from the rows' stored sections, without parsing them; past the end (no rows) the paging
 * fields alone. The query's groupName goes into each requestDetails entry.
 */
export function detailsJson(stored: readonly string[], ctx: DetailContext): string {
  const head = `{"offset":${ctx.offset},"limit":${ctx.limit},"pageResults":${stored.length}`
  if (stored.length === 0) return `${head}}`
  const lists: string[][] = SECTIONS.map(() => [])
  const group = ctx.groupName === undefined ? undefined : `,"groupName":${JSON.stringify(ctx.groupName)}}`
  for (const text of stored) {
    const lines = text.split('\n')
    for (let i = 0; i < SECTIONS.length; i++) {
      const line = lines[i]
      if (line) lists[i]!.push(i === 0 && group ? line.slice(0, -1) + group : line)
    }
  }
  return `${head}${ARRAYS.map((name, i) => `,"${name}":[${lists[i]!.join(',')}]`).join('')}}`
}

/** The sections of a stored row, read back. */
export function readSections(text: string, ctx: DetailContext): DetailSections {
  const lines = text.split('\n')
  const read = (i: number) => (lines[i] ? JSON.parse(lines[i]) : undefined)
  const request = read(0) as DetailSections['request']
  if (ctx.groupName !== undefined) request.groupName = ctx.groupName
  return { request, settlement: read(1), authorization: read(2), feeAndFunding: read(3), other: read(4), settlementStatus: read(5) }
}

/** CSV columns: each section's members, requestId once; authorization members prefixed where names repeat. */
const CSV_COLUMNS: readonly (readonly [string, (e: DetailSections) => string | undefined])[] = [
  ...(['requestId', 'cybersourceMerchantId', 'processorMerchantId', 'groupName', 'transactionReferenceNumber', 'merchantReferenceNumber'] as const).map((k) => [k, (e: DetailSections) => e.request[k]] as const),
  ...(['transactionType', 'submissionTime', 'amount', 'currencyCode', 'paymentMethod', 'walletType', 'paymentType', 'accountSuffix', 'cybersourceBatchTime', 'cybersourceBatchId', 'cardType', 'debitNetwork'] as const).map(
    (k) => [k, (e: DetailSections) => e.settlement?.[k]] as const,
  ),
  ...(['authorizationRequestId', 'time', 'amount', 'currencyCode', 'code', 'rcode'] as const).map(
    (k) => [k === 'authorizationRequestId' ? k : `authorization${k[0]!.toUpperCase()}${k.slice(1)}`, (e: DetailSections) => e.authorization?.[k]] as const,
  ),
  ...(['interchangePerItemFee', 'interchangeDescription', 'interchangePercentage', 'interchangePercentageAmount', 'discountPercentage', 'discountAmount', 'discountPerItemFee', 'totalFee', 'feeCurrency', 'duesAssessments', 'fundingAmount', 'fundingCurrency'] as const).map(
    (k) => [k, (e: DetailSections) => e.feeAndFunding?.[k]] as const,
  ),
  ...(['merchantData1', 'merchantData2', 'merchantData3', 'merchantData4', 'firstName', 'lastName'] as const).map((k) => [k, (e: DetailSections) => e.other?.[k]] as const),
  ...(['status', 'settlementTime', 'reasonCode', 'errorText'] as const).map((k) => [k === 'status' ? 'settlementStatus' : k, (e: DetailSections) => e.settlementStatus?.[k]] as const),
]

export const DETAILS_CSV_HEADER = csvLine(CSV_COLUMNS.map(([name]) => name))

export function detailCsvLine(entry: DetailSections): string {
  return csvLine(CSV_COLUMNS.map(([, value]) => value(entry)))
}

export function detailsXmlOpen(ctx: DetailContext & { startTime: string; endTime: string; pageResults: number }): string {
  const attributes = { Name: 'Purchase and Refund Details', Version: '1.0', MerchantID: ctx.organizationId, ReportStartDate: ctx.startTime, ReportEndDate: ctx.endTime, Offset: ctx.offset, Limit: ctx.limit, PageResults: ctx.pageResults }
  return `${XML_DECLARATION}<Report${xmlAttributes(attributes)}>\n<Requests>\n`
}

export const DETAILS_XML_CLOSE = '</Requests>\n</Report>\n'

export function detailXml(e: DetailSections): string {
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
