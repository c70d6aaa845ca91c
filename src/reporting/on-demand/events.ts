// GET /conversion-details (Decision Manager reviews converted in the window) and GET /notification-of-changes
// (bank account corrections received in the window), both read through the store's event index: the events'
// times live inside `fields`, and the index finds them without reading the merchant's other transactions.
// Conversion details have no paging on the wire, so every format is streamed a page of rows at a time. The console
// reads the same keyset a page at a time instead (conversionPage, noticePage), carrying the last entry's key in an
// opaque cursor.
import { Readable } from 'node:stream'
import type { Executor } from '../../platform/db/database.js'
import { invalid, notFound } from '../../platform/errors.js'
import type { EventKind } from '../transactions/tallies.js'
import type { CatalogFields } from '../transactions/catalog.js'
import type { Answer } from './details.js'
import { csvLine, negotiate, xmlAttributes, xmlText, XML_DECLARATION } from './formats.js'
import * as repo from './repository.js'
import type { StoredRow } from './repository.js'
import type { ConversionEntry, NoticeEntry, NotificationOfChanges, WindowQuery } from './schemas.js'
import { MAX_WINDOW_DAYS, readWindow, type Window } from './window.js'

const PAGE = 1000
const NO_TRANSACTIONS = 'no transactions fall in the window'

/** Where a paged read of an event report starts, and how many entries it gives. */
export interface EventPageQuery {
  /** The previous page's `next`; absent for the window's first page. */
  after?: string
  /** 1 to MAX_EVENT_PAGE. */
  limit: number
}

export interface EventPage<T> {
  entries: T[]
  /** Pass as `after` for the entries that follow; null when there are none. */
  next: string | null
}

export const MAX_EVENT_PAGE = PAGE
/** An event's key as the store writes it (eventsOf: toISOString), the only time a cursor may carry. */
const EVENT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const MAX_CURSOR = 1024

type EventKey = { time: string; requestId: string }
const cursorOf = (key: EventKey) => Buffer.from(JSON.stringify([key.time, key.requestId])).toString('base64url')

/**
 * The key a cursor carries; invalid() for anything this service did not write. Base64url decoding skips what it
 * cannot read, so the cursor must also be the exact text its key encodes to.
 */
function keyOf(cursor: string): EventKey {
  const refuse = () => invalid([{ field: 'cursor', reason: 'is not a cursor this page gave' }])
  if (cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse()
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw refuse()
  }
  if (!Array.isArray(value) || value.length !== 2) throw refuse()
  const [time, requestId] = value as unknown[]
  if (typeof time !== 'string' || typeof requestId !== 'string' || requestId === '' || !EVENT_TIME.test(time)) throw refuse()
  const ms = Date.parse(time)
  if (Number.isNaN(ms) || new Date(ms).toISOString() !== time) throw refuse()
  const key = { time, requestId }
  if (cursorOf(key) !== cursor) throw refuse()
  return key
}

interface ParsedRow {
  row: StoredRow
  fields: CatalogFields
}
const parse = (row: StoredRow): ParsedRow => ({ row, fields: JSON.parse(row.fields) as CatalogFields })

/** Absent members are left undefined, which JSON leaves out and the CSV and XML writers skip. */
export function conversionEntry({ row, fields: f }: ParsedRow): ConversionEntry {
  const c = f['Conversion'] ?? {}
  return {
    merchantReferenceNumber: f['OrderFields']?.['MerchantReferenceNumber'],
    conversionTime: c['ConversionDate'],
    requestId: row.request_id,
    originalDecision: c['OriginalDecision'],
    newDecision: c['NewDecision'],
    reviewer: c['Reviewer'],
    reviewerComments: c['ReviewerComments'],
    queue: c['Queue'],
    profile: c['Profile'],
    // The reviewer's comment is the one note a review carries here.
    ...(c['ReviewerComments'] ? { notes: [{ time: c['ConversionDate'], addedBy: c['Reviewer'], comments: c['ReviewerComments'] }] } : {}),
  }
}

export function noticeEntry({ fields: f }: ParsedRow): NoticeEntry {
  const n = f['NotificationOfChange'] ?? {}
  return {
    merchantReferenceNumber: f['OrderFields']?.['MerchantReferenceNumber'],
    transactionReferenceNumber: f['PaymentData']?.['TransactionReferenceNumber'],
    time: n['Time'],
    code: n['Code'],
    accountType: n['AccountType'],
    routingNumber: n['RoutingNumber'],
    accountNumber: n['AccountNumber'],
    consumerName: n['ConsumerName'],
  }
}

const CONVERSION_COLUMNS = ['merchantReferenceNumber', 'conversionTime', 'requestId', 'originalDecision', 'newDecision', 'reviewer', 'reviewerComments', 'queue', 'profile'] as const

/** The reference's XML for one conversion: identifying attributes, decision elements, notes. */
function conversionXml(e: ConversionEntry): string {
  const element = (name: string, value: string | undefined) => (value === undefined ? '' : `<${name}>${xmlText(value)}</${name}>`)
  const notes = e.notes?.length ? `<Notes>${e.notes.map((n) => `<Note${xmlAttributes({ Date: n.time, AddedBy: n.addedBy, Comment: n.comments })}/>`).join('')}</Notes>` : ''
  return (
    `<Conversion${xmlAttributes({ MerchantReferenceNumber: e.merchantReferenceNumber, ConversionDate: e.conversionTime, RequestID: e.requestId })}>` +
    element('OriginalDecision', e.originalDecision) +
    element('NewDecision', e.newDecision) +
    element('Reviewer', e.reviewer) +
    element('ReviewerComments', e.reviewerComments) +
    element('Queue', e.queue) +
    element('Profile', e.profile) +
    notes +
    '</Conversion>\n'
  )
}

export function createEventReports(deps: { db: Executor }) {
  const { db } = deps

  /** Every row with an event of the kind in the window, a page at a time, starting with `first`. */
  async function* pages(organizationId: string, kind: EventKind, window: Window, first: Awaited<ReturnType<typeof repo.eventRows>>) {
    let page = first
    for (;;) {
      yield page.map(parse)
      if (page.length < PAGE) return
      const last = page[page.length - 1]!
      page = await repo.eventRows(db, organizationId, kind, { from: window.start, to: window.end }, { time: last.event_time, requestId: last.request_id }, PAGE)
    }
  }

  async function firstPage(organizationId: string, kind: EventKind, window: Window) {
    const first = await repo.eventRows(db, organizationId, kind, { from: window.start, to: window.end }, undefined, PAGE)
    if (first.length === 0) throw notFound([{ reason: NO_TRANSACTIONS }])
    return first
  }

  /**
   * Up to `limit` entries of the kind in the window after the cursor's key, in the streaming answer's order. The
   * window's first page empty is the API's not found; a later one empty is an empty page.
   */
  async function eventPage<T>(organizationId: string, kind: EventKind, query: WindowQuery, at: EventPageQuery, entry: (row: ParsedRow) => T): Promise<EventPage<T>> {
    const window = readWindow(query, MAX_WINDOW_DAYS)
    if (!Number.isInteger(at.limit) || at.limit < 1 || at.limit > MAX_EVENT_PAGE) throw invalid([{ field: 'limit', reason: `must be a whole number from 1 to ${MAX_EVENT_PAGE}` }])
    const after = at.after === undefined ? undefined : keyOf(at.after)
    // One more than shown: whether another page follows, without counting the window.
    const rows = await repo.eventRows(db, organizationId, kind, { from: window.start, to: window.end }, after, at.limit + 1)
    if (rows.length === 0 && after === undefined) throw notFound([{ reason: NO_TRANSACTIONS }])
    const shown = rows.slice(0, at.limit)
    const last = shown[shown.length - 1]
    return { entries: shown.map((r) => entry(parse(r))), next: rows.length > at.limit && last ? cursorOf({ time: last.event_time, requestId: last.request_id }) : null }
  }

  return {
    conversionPage: (organizationId: string, query: WindowQuery, at: EventPageQuery) => eventPage(organizationId, 'conversion', query, at, conversionEntry),
    noticePage: (organizationId: string, query: WindowQuery, at: EventPageQuery) => eventPage(organizationId, 'notification_of_change', query, at, noticeEntry),

    async conversionDetails(organizationId: string, query: WindowQuery, accept: string | undefined): Promise<Answer> {
      const { format, contentType } = negotiate(accept, ['json', 'csv', 'xml'])
      const window = readWindow(query, MAX_WINDOW_DAYS)
      const rows = pages(organizationId, 'conversion', window, await firstPage(organizationId, 'conversion', window))
      async function* text() {
        if (format === 'json') yield `{"organizationId":${JSON.stringify(organizationId)},"startTime":"${window.start}","endTime":"${window.end}","conversionDetails":[`
        else if (format === 'csv') yield csvLine(CONVERSION_COLUMNS)
        else yield `${XML_DECLARATION}<Report${xmlAttributes({ Name: 'Conversion Detail Report', Version: '1.0', MerchantID: organizationId, ReportStartDate: window.start, ReportEndDate: window.end })}>\n`
        let first = true
        for await (const page of rows) {
          const entries = page.map(conversionEntry)
          if (format === 'json') yield (first ? '' : ',') + entries.map((e) => JSON.stringify(e)).join(',')
          else if (format === 'csv') yield entries.map((e) => csvLine(CONVERSION_COLUMNS.map((c) => e[c]))).join('')
          else yield entries.map(conversionXml).join('')
          first = false
        }
        yield format === 'json' ? ']}' : format === 'xml' ? '</Report>\n' : ''
      }
      return { contentType, body: Readable.from(text()) }
    },

    async notificationOfChanges(organizationId: string, query: WindowQuery): Promise<NotificationOfChanges> {
      const window = readWindow(query, MAX_WINDOW_DAYS)
      const notificationOfChanges: NoticeEntry[] = []
      for await (const page of pages(organizationId, 'notification_of_change', window, await firstPage(organizationId, 'notification_of_change', window))) notificationOfChanges.push(...page.map(noticeEntry))
      return { notificationOfChanges }
    },
  }
}
