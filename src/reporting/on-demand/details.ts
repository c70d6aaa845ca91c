// GET /purchase-refund-details: a page of submitted purchases and refunds. The wire pages by offset and limit;
// inside, the page's first row is found from the hourly tallies (the hour holding the offset, then a skip within
// that hour), so a page costs the same at offset 0 and at offset 998,000 and never counts through the rows before
// it; the page itself is 2,000 detail rows the store rendered when it wrote them. A window's hours and rendered
// pages (page-cache.ts) are kept under keys holding the store's generation, so they are never used after a change.
import { Readable } from 'node:stream'
import type { Dialect, Executor } from '../../platform/db/database.js'
import { notFound } from '../../platform/errors.js'
import { DETAILS_CSV_HEADER, DETAILS_XML_CLOSE, detailCsvLine, detailsJson, detailsXmlOpen, detailXml, encodeRows, readSections, type DetailContext } from './details-body.js'
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
/** Windows whose hours are kept (a few kB each). */
const LOCATED = 256

/** A window's non-empty hours in order: where each starts, how many details come before it, and the total. */
interface Hours {
  starts: string[]
  before: number[]
  total: number
}
/** Rows written per chunk of a streamed CSV or XML page. */
const CHUNK = 250

const isText = (rows: Buffer[] | string[]): rows is string[] => typeof rows[0] === 'string'

export function createDetailsReport(deps: { db: Executor; dialect: Dialect; cache: PageCache }) {
  const { db, dialect, cache } = deps
  const located = new Map<string, Hours>()

  /**
   * The window's hours (and partial first and last hours) with the count before each: from the tallies, kept per
   * window and generation, so the pages of a walk after the first find their start with no query at all.
   */
  async function hours(filter: repo.DetailFilter, window: Window, generation: number): Promise<Hours> {
    const key = JSON.stringify([filter.organizationId, filter.view, filter.paymentSubtype, window.start, window.end, generation])
    const kept = located.get(key)
    if (kept) {
      located.delete(key)
      located.set(key, kept)
      return kept
    }
    const spans = hourSpans(window)
    const [head, whole, tail] = await Promise.all([
      spans.head ? repo.countDetails(db, filter, ...spans.head) : 0,
      spans.whole ? repo.detailHours(db, filter, ...spans.whole) : [],
      spans.tail ? repo.countDetails(db, filter, ...spans.tail) : 0,
    ])
    const segments = [...(spans.head ? [{ bucket: spans.head[0], n: head }] : []), ...whole, ...(spans.tail ? [{ bucket: spans.tail[0], n: tail }] : [])].filter((x) => x.n > 0)
    const found: Hours = { starts: segments.map((x) => x.bucket), before: [], total: 0 }
    for (const { n } of segments) {
      found.before.push(found.total)
      found.total += n
    }
    located.set(key, found)
    if (located.size > LOCATED) located.delete(located.keys().next().value!)
    return found
  }

  /** The page's stored rows (text on PostgreSQL); undefined when the window holds no detail at all. */
  async function page(filter: repo.DetailFilter, window: Window, ctx: DetailContext, generation: number): Promise<Buffer[] | string[] | undefined> {
    const { starts, before, total } = await hours(filter, window, generation)
    if (total === 0) return undefined
    if (ctx.offset >= total) return []
    // The last hour starting at or before the offset; the page is read from there, skipping the rows before it.
    let lo = 0
    for (let hi = before.length - 1; lo < hi; ) {
      const mid = (lo + hi + 1) >> 1
      if (before[mid]! <= ctx.offset) lo = mid
      else hi = mid - 1
    }
    return repo.detailSections(db, dialect, filter, starts[lo]!, window.end, ctx.offset - before[lo]!, ctx.limit)
  }

  function stream(format: Exclude<Format, 'json'>, contentType: string, rows: Buffer[] | string[], window: Window, ctx: DetailContext, keep: (page: () => CachedPage) => void): Answer {
    const head = format === 'csv' ? DETAILS_CSV_HEADER : detailsXmlOpen({ ...ctx, startTime: window.start, endTime: window.end, pageResults: rows.length })
    const line = format === 'csv' ? detailCsvLine : detailXml
    // Written a chunk of rows at a time as the client reads; the whole page is offered to the cache once written.
    async function* chunks() {
      const written: Buffer[] = []
      const emit = (text: string) => {
        const bytes = Buffer.from(text)
        written.push(bytes)
        return bytes
      }
      yield emit(head)
      for (let i = 0; i < rows.length; i += CHUNK) yield emit(rows.slice(i, i + CHUNK).map((row) => line(readSections(row, ctx))).join(''))
      if (format === 'xml') yield emit(DETAILS_XML_CLOSE)
      keep(() => ({ contentType, body: Buffer.concat(written) }))
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
        const rows = await page(filter, window, ctx, generation)
        if (rows === undefined) throw notFound([{ reason: NO_TRANSACTIONS }])
        return { contentType, body: detailsJson(isText(rows) ? encodeRows(rows) : rows, ctx) }
      })
    }
    const rows = await page(filter, window, ctx, generation)
    if (rows === undefined) throw notFound([{ reason: NO_TRANSACTIONS }])
    return stream(format, contentType, rows, window, ctx, (p) => cache.offer(key, p))
  }
}
