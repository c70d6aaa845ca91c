// A page of purchase and refund details from the stored detail rows (reporting/transactions/details.ts): the JSON
// body put together from the rows' rendered bytes as they are, and the same page as CSV (one record per request)
// or XML (one Request element per request) from the sections read back. Pure.
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
const NEWLINE = 0x0a
const [COMMA, CLOSE_BRACKET, CLOSE_BRACE] = [0x2c, 0x5d, 0x7d]

/** A stored row's section lines, as slices of its bytes (no copy), or of its text. */
function lines(row: Buffer | string): (Buffer | string)[] {
  if (typeof row === 'string') return row.split('\n', SECTIONS.length)
  const out: Buffer[] = []
  let start = 0
  for (let i = 0; i < SECTIONS.length - 1; i++) {
    const end = row.indexOf(NEWLINE, start)
    out.push(row.subarray(start, end))
    start = end + 1
  }
  out.push(row.subarray(start))
  return out
}

/**
 * The JSON body of a page from the rows' stored bytes, copied side by side into one buffer without being decoded;
 * past the end (no rows) the paging fields alone. The query's groupName goes at the end of each requestDetails entry.
 * Two passes, the first finding each section's bounds and the body's length, so that a 2,000-row page is one
 * allocation and one copy per section (slicing every line into a Buffer and concatenating them took about 9 ms of a
 * first-time page's 18, and a part of its collections).
 */
export function detailsJson(stored: readonly Buffer[], ctx: DetailContext): Buffer {
  const head = `{"offset":${ctx.offset},"limit":${ctx.limit},"pageResults":${stored.length}`
  if (stored.length === 0) return Buffer.from(`${head}}`)
  const count = SECTIONS.length
  const group = ctx.groupName === undefined ? undefined : Buffer.from(`,"groupName":${JSON.stringify(ctx.groupName)}}`)
  // Section i of row r is bytes [starts[r * count + i], ends[…]) of that row: its line, without the line break.
  const starts = new Int32Array(stored.length * count)
  const ends = new Int32Array(stored.length * count)
  const openers = ARRAYS.map((name) => `,"${name}":[`)
  let length = Buffer.byteLength(head) + 1
  for (let i = 0; i < count; i++) length += openers[i]!.length + 1
  const present = new Array<number>(count).fill(0)
  stored.forEach((row, r) => {
    let start = 0
    for (let i = 0; i < count; i++) {
      const end = i < count - 1 ? row.indexOf(NEWLINE, start) : row.length
      if (end < 0) throw new Error(`a stored detail row has ${i + 1} sections, not ${count}`)
      starts[r * count + i] = start
      ends[r * count + i] = end
      if (end > start) {
        // The line, a comma before all but the first, and the group in place of the request's closing brace.
        length += end - start + (present[i]! > 0 ? 1 : 0) + (i === 0 && group ? group.length - 1 : 0)
        present[i]!++
      }
      start = end + 1
    }
  })
  const body = Buffer.allocUnsafe(length)
  let at = body.write(head, 0)
  for (let i = 0; i < count; i++) {
    at += body.write(openers[i]!, at)
    let first = true
    for (let r = 0; r < stored.length; r++) {
      const start = starts[r * count + i]!
      const end = ends[r * count + i]!
      if (end === start) continue
      if (!first) body[at++] = COMMA
      first = false
      if (i === 0 && group) at += stored[r]!.copy(body, at, start, end - 1) + group.copy(body, at + end - 1 - start)
      else at += stored[r]!.copy(body, at, start, end)
    }
    body[at++] = CLOSE_BRACKET
  }
  body[at++] = CLOSE_BRACE
  if (at !== length) throw new Error(`a details page measured ${length} bytes and wrote ${at}`)
  return body
}

/** Where encodeRows puts the rows' bytes: one buffer, made at the first page, grown as needed and reused. */
let arena = Buffer.alloc(0)

/**
 * Rows read as text (PostgreSQL's) as their UTF-8 bytes, for detailsJson: views of one buffer that the next call
 * writes over, so they must be used before anything else runs (detailsJson, synchronously). A Buffer made for each
 * row had its memory outside V8's heap, 2.4 MB a first-time page besides its body: with the body's, that memory
 * started a full collection about every eight pages, most of the tail of their times.
 */
export function encodeRows(rows: readonly string[]): Buffer[] {
  const out: Buffer[] = []
  let at = 0
  for (const row of rows) {
    // A UTF-16 unit is at most 3 bytes of UTF-8; only near the end is the row's own length worth measuring.
    if (arena.length - at < row.length * 3 && arena.length - at < Buffer.byteLength(row)) {
      const larger = Buffer.allocUnsafeSlow(Math.max(arena.length * 2, at + Buffer.byteLength(row), 4 * 2 ** 20))
      arena.copy(larger, 0, 0, at)
      // The views already made stay on the old buffer, which they keep alive until they are let go.
      arena = larger
    }
    const written = arena.write(row, at)
    out.push(arena.subarray(at, at + written))
    at += written
  }
  return out
}

/** The sections of a stored row, read back. */
export function readSections(row: Buffer | string, ctx: DetailContext): DetailSections {
  const sections = lines(row)
  const read = (i: number) => (sections[i]!.length ? JSON.parse(sections[i]!.toString()) : undefined)
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
