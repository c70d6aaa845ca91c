// GET /conversion-details (Decision Manager reviews converted in the window) and GET /notification-of-changes
// (bank account corrections received in the window), both read through the store's event index: the events'
// times live inside `fields`, and the index finds them without reading the merchant's other transactions.
// Conversion details have no paging on the wire, so every format is streamed a page of rows at a time.
import { Readable } from 'node:stream'
import type { Executor } from '../../platform/db/database.js'
import { notFound } from '../../platform/errors.js'
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

interface ParsedRow {
  row: StoredRow
  fields: CatalogFields
}
const parse = (row: StoredRow): ParsedRow => ({ row, fields: JSON.parse(row.fields) as CatalogFields })
/** Absent members stay undefined, which JSON leaves out and the CSV and XML writers skip. */
const present = <T>(entry: T): T => entry

export function conversionEntry({ row, fields: f }: ParsedRow): ConversionEntry {
  const c = f['Conversion'] ?? {}
  return present<ConversionEntry>({
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
    ...(c['ReviewerComments'] ? { notes: [present({ time: c['ConversionDate'], addedBy: c['Reviewer'], comments: c['ReviewerComments'] })] } : {}),
  })
}

export function noticeEntry({ fields: f }: ParsedRow): NoticeEntry {
  const n = f['NotificationOfChange'] ?? {}
  return present<NoticeEntry>({
    merchantReferenceNumber: f['OrderFields']?.['MerchantReferenceNumber'],
    transactionReferenceNumber: f['PaymentData']?.['TransactionReferenceNumber'],
    time: n['Time'],
    code: n['Code'],
    accountType: n['AccountType'],
    routingNumber: n['RoutingNumber'],
    accountNumber: n['AccountNumber'],
    consumerName: n['ConsumerName'],
  })
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

  return {
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
