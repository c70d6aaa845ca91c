// GET /purchase-refund-details: a page of submitted purchases and refunds. The wire pages by offset and limit;
// inside, the page's first row is found from the hourly tallies (the hour holding the offset, then a skip within
// that hour), so a page costs the same at offset 0 and at offset 998,000 and never counts through the rows before
// it; the page itself is 2,000 detail rows the store rendered when it wrote them. Pages are kept rendered
// (page-cache.ts) under a key holding the store's generation.
import { Readable } from 'node:stream'
import type { Executor } from '../../platform/db/database.js'
import { notFound } from '../../platform/errors.js'
import { DETAILS_CSV_HEADER, DETAILS_XML_CLOSE, detailCsvLine, detailsJson, detailsXmlOpen, detailXml, readSections, type DetailContext } from './details-body.js'
import { negotiate, type Format } from './formats.js'
import type { CachedPage, PageCache } from './page-cache.js'
import * as repo from './repository.js'
import { MAX_LIMIT, type DetailsQuery } from './schemas.js'
import { hourSpans, MAX_WINDOW_DAYS, readWindow, type Window } from './window.js'

/** A report answer: bytes already rendered, or a stream of them. */
export interface Answer {
  contentType: string
  body: Buffer | Readable
}

const NO_TRANSACTIONS = 'no transactions fall in the window'
/** Rows written per chunk of a streamed CSV or XML page. */
const CHUNK = 250

export function createDetailsReport(deps: { db: Executor; cache: PageCache }) {
  const { db, cache } = deps

  /** Where the page starting at `offset` begins: the total, and the time to seek from with the rows to skip there. */
  async function locate(filter: repo.DetailFilter, window: Window, offset: number): Promise<{ total: number; from: string; skip: number }> {
    const spans = hourSpans(window)
    const [head, hours, tail] = await Promise.all([
      spans.head ? repo.countDetails(db, filter, ...spans.head) : 0,
      spans.whole ? repo.detailHours(db, filter, ...spans.whole) : [],
      spans.tail ? repo.countDetails(db, filter, ...spans.tail) : 0,
    ])
    const segments = [...(spans.head ? [{ bucket: spans.head[0], n: head }] : []), ...hours, ...(spans.tail ? [{ bucket: spans.tail[0], n: tail }] : [])]
    let total = 0
    let start: { from: string; skip: number } | undefined
    for (const { bucket, n } of segments) {
      if (start === undefined && offset < total + n) start = { from: bucket, skip: offset - total }
      total += n
    }
    return { total, ...(start ?? { from: window.end, skip: 0 }) }
  }

  /** The page's stored rows; undefined when the window holds no detail at all. */
  async function page(filter: repo.DetailFilter, window: Window, ctx: DetailContext): Promise<string[] | undefined> {
    const at = await locate(filter, window, ctx.offset)
    if (at.total === 0) return undefined
    if (ctx.offset >= at.total) return []
    return repo.detailSections(db, filter, at.from, window.end, at.skip, ctx.limit)
  }

  function stream(format: Exclude<Format, 'json'>, contentType: string, rows: string[], window: Window, ctx: DetailContext, keep: (page: CachedPage) => void): Answer {
    const head = format === 'csv' ? DETAILS_CSV_HEADER : detailsXmlOpen({ ...ctx, startTime: window.start, endTime: window.end, pageResults: rows.length })
    const line = format === 'csv' ? detailCsvLine : detailXml
    // Written a chunk of rows at a time as the client reads; the whole page is kept once it has been written.
    async function* chunks() {
      const written: Buffer[] = []
      const emit = (text: string) => {
        const bytes = Buffer.from(text)
        written.push(bytes)
        return bytes
      }
      yield emit(head)
      for (let i = 0; i < rows.length; i += CHUNK) yield emit(rows.slice(i, i + CHUNK).map((text) => line(readSections(text, ctx))).join(''))
      if (format === 'xml') yield emit(DETAILS_XML_CLOSE)
      keep({ contentType, body: Buffer.concat(written) })
    }
    return { contentType, body: Readable.from(chunks()) }
  }

  return async function purchaseRefundDetails(organizationId: string, query: DetailsQuery, accept: string | undefined): Promise<Answer> {
    const { format, contentType } = negotiate(accept, ['json', 'csv', 'xml'])
    const window = readWindow(query, MAX_WINDOW_DAYS)
    const subtype = query.paymentSubtype === undefined || query.paymentSubtype === 'ALL' ? undefined : query.paymentSubtype
    const filter: repo.DetailFilter = { organizationId, view: query.viewBy === 'submissionDate' ? 'submission' : 'request', ...(subtype ? { paymentSubtype: subtype } : {}) }
    const ctx: DetailContext = { organizationId, groupName: query.groupName, offset: query.offset ?? 0, limit: query.limit ?? MAX_LIMIT }
    const generation = await repo.generation(db, organizationId)
    const key = JSON.stringify(['details', organizationId, filter.view, subtype, window.start, window.end, ctx.offset, ctx.limit, ctx.groupName, contentType, generation])
    const cached = cache.get(key)
    if (cached) return cached
    if (format === 'json') {
      return cache.getOrRender(key, async () => {
        const rows = await page(filter, window, ctx)
        if (rows === undefined) throw notFound([{ reason: NO_TRANSACTIONS }])
        return { contentType, body: Buffer.from(detailsJson(rows, ctx)) }
      })
    }
    const rows = await page(filter, window, ctx)
    if (rows === undefined) throw notFound([{ reason: NO_TRANSACTIONS }])
    return stream(format, contentType, rows, window, ctx, (p) => cache.set(key, p))
  }
}
