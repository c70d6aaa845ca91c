// /console/on-demand: the on-demand reports of the reporting interface, each a page, through the OnDemandService the
// API's /reporting/v3 routes use, for the organization acted for: purchase and refund details a page at a time (the
// service's offset and limit, its window of at most 92 days) and the same page as CSV (the service's own CSV, so the
// API's bytes); net funding; payment batch summaries; conversions and notifications of change a page at a time (the
// service's keyset pages over the streaming answer's order, a cursor in the next page's link), the conversions' CSV
// the API's answer for the whole window.
// A window the service refuses, or a value the API's schema would refuse, re-renders the form with one line naming
// the limit (400); a window with nothing in it (the API's 404) is said on the page.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import type { Clock } from '../../platform/clock.js'
import { DomainError, invalid } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import type { Answer, EventPage, OnDemandService } from '../../reporting/on-demand/service.js'
import { BREAKDOWNS, MAX_LIMIT, PAYMENT_SUBTYPES, ROLL_UPS, VIEW_BY, type PurchaseRefundDetails } from '../../reporting/on-demand/schemas.js'
import { MAX_SUMMARY_WINDOW_DAYS, MAX_WINDOW_DAYS } from '../../reporting/on-demand/window.js'
import { chrome, queryParam, sendPage, session } from '../http.js'
import { html, page, type Html } from '../layout.js'
import { conversionsTable, detailsTable, fundingTables, noticesTable, none, options, pager, refusal, reportLinks, summariesTable, windowInputs } from './view.js'

export interface ConsoleOnDemandDeps {
  clock: Clock
  onDemand: OnDemandService
}

const DAY_MS = 86_400_000
/** The conversions' and notifications of change's window unless asked for another: a week. */
const EVENT_DAYS = 7
/** Requests a console page shows unless asked for more (the API's default is its maximum, 2000); events a page. */
const PAGE_SIZE = 50
const MAX_OFFSET = 2_147_483_647

/** What a report call came to: its answer, the window's emptiness, or the one-line reason it was refused. */
type Outcome<T> = { value: T } | { empty: true } | { refused: string; status: number }

async function attempt<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { value: await run() }
  } catch (err) {
    if (!(err instanceof DomainError)) throw err
    if (err.kind === 'not_found') return { empty: true }
    const reason = err.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ')
    if (err.kind === 'invalid') return { refused: `${reason}.`, status: 400 }
    // Net funding is given for an account or a merchant: a reseller is told so on the page.
    if (err.kind === 'forbidden') return { refused: `${reason}.`, status: 200 }
    throw err
  }
}

/** An answer's bytes. */
async function bytesOf(body: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body
  const parts: Buffer[] = []
  for await (const chunk of body) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
  return Buffer.concat(parts)
}

const midnight = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().replace('.000Z', 'Z')

/** The window asked for, or the `days` up to the end of today (UTC). */
function windowOf(request: FastifyRequest, now: number, days: number) {
  return { startTime: queryParam(request, 'startTime') || midnight(now - (days - 1) * DAY_MS), endTime: queryParam(request, 'endTime') || midnight(now + DAY_MS) }
}

/** A whole number in [min, max] written in digits, as the API's query would take it; else invalid() naming it. */
function wholeNumber(text: string, name: string, fallback: number, min: number, max: number): number {
  if (text === '') return fallback
  const n = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN
  if (!(n >= min && n <= max)) throw invalid([{ field: name, reason: `must be a whole number from ${min} to ${max}` }])
  return n
}

/** One of the values the API's schema lists; else invalid() naming them. */
function oneOf<T extends string>(text: string, name: string, allowed: readonly T[], fallback: T | undefined): T | undefined {
  if (text === '') return fallback
  if (!(allowed as readonly string[]).includes(text)) throw invalid([{ field: name, reason: `must be one of ${allowed.join(', ')}` }])
  return text as T
}

function sendAnswer(reply: FastifyReply, answer: Answer, filename: string) {
  return reply.type(answer.contentType).header('content-disposition', `attachment; filename="${filename}"`).send(answer.body)
}

export async function consoleOnDemand(scope: App, deps: ConsoleOnDemandDeps): Promise<void> {
  const { onDemand } = deps

  /** The details query of the request (the API's parameters and their rules), or the reason it cannot be one. */
  function detailsQuery(request: FastifyRequest) {
    const window = windowOf(request, deps.clock.now().getTime(), 7)
    const form = { ...window, paymentSubtype: queryParam(request, 'paymentSubtype') || 'ALL', viewBy: queryParam(request, 'viewBy') || 'requestDate', limit: queryParam(request, 'limit') || String(PAGE_SIZE), offset: queryParam(request, 'offset') || '0' }
    const read = () => ({
      ...window,
      paymentSubtype: oneOf(form.paymentSubtype, 'paymentSubtype', PAYMENT_SUBTYPES, 'ALL'),
      viewBy: oneOf(form.viewBy, 'viewBy', VIEW_BY, 'requestDate'),
      limit: wholeNumber(form.limit, 'limit', PAGE_SIZE, 1, MAX_LIMIT),
      offset: wholeNumber(form.offset, 'offset', 0, 0, MAX_OFFSET),
    })
    return { form, read }
  }

  async function details(request: FastifyRequest, reply: FastifyReply, download: boolean) {
    const s = session(request)
    const { form, read } = detailsQuery(request)
    const outcome = await attempt(async () => {
      const query = read()
      return { query, answer: await onDemand.purchaseRefundDetails(s.actingId, query, download ? 'text/csv' : 'application/json') }
    })
    if (download && 'value' in outcome) return sendAnswer(reply, outcome.value.answer, `purchase-refund-details-${outcome.value.query.offset}.csv`)
    let results: Html | string = ''
    if ('empty' in outcome) results = none('purchases or refunds')
    else if ('value' in outcome) {
      const { query } = outcome.value
      const body = JSON.parse((await bytesOf(outcome.value.answer.body)).toString('utf8')) as PurchaseRefundDetails
      const link = (offset: number, path = '/console/on-demand') =>
        `${path}?${new URLSearchParams({ startTime: query.startTime, endTime: query.endTime, paymentSubtype: query.paymentSubtype ?? 'ALL', viewBy: query.viewBy ?? 'requestDate', limit: String(query.limit), offset: String(offset) })}`
      const pages = pager('Pages of requests', [
        query.offset > 0 && [link(Math.max(0, query.offset - query.limit)), `Previous ${query.limit}`, 'prev'],
        body.pageResults === query.limit && [link(query.offset + query.limit), `Next ${query.limit}`, 'next'],
      ])
      results =
        body.pageResults === 0
          ? html`<p class="muted">No requests from ${query.offset + 1} on: the window holds fewer.</p>${pages}`
          : html`${detailsTable(body)}${pages}<p><a href="${link(query.offset, '/console/on-demand/purchase-refund-details.csv')}" download>Download these ${body.pageResults} requests as CSV</a> (the API's <code>text/csv</code> answer to the same query)</p>`
    }
    const refused = 'refused' in outcome ? outcome.refused : undefined
    return sendPage(
      reply,
      page(
        'Purchases and refunds',
        html`<h1>On-demand reports</h1>${reportLinks('/console/on-demand')}
<section><h2>Purchases and refunds</h2>
<form method="get" action="/console/on-demand">
${windowInputs(form.startTime, form.endTime, MAX_WINDOW_DAYS)}
<label for="paymentSubtype">Payment subtype</label><select id="paymentSubtype" name="paymentSubtype">${options(PAYMENT_SUBTYPES, form.paymentSubtype)}</select>
<label for="viewBy">The window applies to</label><select id="viewBy" name="viewBy">${options(VIEW_BY, form.viewBy, { requestDate: 'the request time', submissionDate: 'the submission (batch) time' })}</select>
<label for="limit">Requests a page (1 to ${MAX_LIMIT})</label><input id="limit" name="limit" value="${form.limit}" inputmode="numeric" maxlength="10">
<button type="submit">Show</button></form></section>
${refusal(refused)}
${results}`,
        chrome(s),
      ),
      'refused' in outcome ? outcome.status : 200,
    )
  }

  scope.get('/console/on-demand', (request, reply) => details(request, reply, false))
  scope.get('/console/on-demand/purchase-refund-details.csv', (request, reply) => details(request, reply, true))

  /** A report page of a window form (and extra fields), its answer rendered by `show`. */
  function windowPage<T>(path: string, title: string, what: string, maxDays: number, days: number, extra: (request: FastifyRequest) => Html | string, run: (request: FastifyRequest, organizationId: string, window: { startTime: string; endTime: string }) => Promise<T>, show: (value: T, window: { startTime: string; endTime: string }, request: FastifyRequest) => Html | Promise<Html>) {
    scope.get(path, async (request, reply) => {
      const s = session(request)
      const window = windowOf(request, deps.clock.now().getTime(), days)
      const outcome = await attempt(() => run(request, s.actingId, window))
      const results = 'value' in outcome ? await show(outcome.value, window, request) : 'empty' in outcome ? none(what) : ''
      return sendPage(
        reply,
        page(
          title,
          html`<h1>On-demand reports</h1>${reportLinks(path)}
<section><h2>${title}</h2><form method="get" action="${path}">
${windowInputs(window.startTime, window.endTime, maxDays)}${extra(request)}
<button type="submit">Show</button></form></section>
${refusal('refused' in outcome ? outcome.refused : undefined)}
${results}`,
          chrome(s),
        ),
        'refused' in outcome ? outcome.status : 200,
      )
    })
  }

  windowPage(
    '/console/on-demand/net-funding',
    'Net funding',
    'fundings',
    MAX_WINDOW_DAYS,
    30,
    () => html`<p class="muted">Fundings whose funding date is in the window, in settlement currency.</p>`,
    (_request, org, window) => onDemand.netFundings(org, window),
    (value) => fundingTables(value),
  )

  const rollUpLabels = { '': 'None: the whole window', day: 'By day', week: 'By week', month: 'By month' }
  const breakdownLabels = { '': 'None: your own totals', account_rollup: 'Per account', all_merchant: 'Per merchant', selected_merchant: 'The organization acted for (a merchant)' }
  windowPage(
    '/console/on-demand/batch-summaries',
    'Batch summaries',
    'sales or credits',
    MAX_SUMMARY_WINDOW_DAYS,
    30,
    (request) => html`<label for="rollUp">Periods (with a breakdown)</label><select id="rollUp" name="rollUp">${options(['', ...ROLL_UPS], queryParam(request, 'rollUp'), rollUpLabels)}</select>
<label for="breakdown">Breakdown (with periods)</label><select id="breakdown" name="breakdown">${options(['', ...BREAKDOWNS], queryParam(request, 'breakdown'), breakdownLabels)}</select>`,
    async (request, org, window) => {
      const rollUp = oneOf(queryParam(request, 'rollUp'), 'rollUp', ROLL_UPS, undefined)
      const breakdown = oneOf(queryParam(request, 'breakdown'), 'breakdown', BREAKDOWNS, undefined)
      return onDemand.paymentBatchSummaries(org, { ...window, ...(rollUp ? { rollUp } : {}), ...(breakdown ? { breakdown } : {}) })
    },
    (value) => summariesTable(value),
  )

  /**
   * An event report's page: its entries' table, the link to the next page (the cursor and the window) and back to the
   * first; `extra` after them. A later page with nothing left says so.
   */
  function eventPage<T>(path: string, what: string, page: EventPage<T>, table: (entries: T[]) => Html, window: { startTime: string; endTime: string }, request: FastifyRequest, extra: Html | string = '') {
    const cursor = queryParam(request, 'cursor')
    const link = (next?: string) => `${path}?${new URLSearchParams({ ...window, ...(next ? { cursor: next } : {}) })}`
    const pages = pager(`Pages of ${what}`, [cursor !== '' && [link(), 'First page'], page.next !== null && [link(page.next), 'Next page', 'next']])
    return page.entries.length === 0 ? html`<p class="muted">No ${what} after these in this window.</p>${pages}${extra}` : html`${table(page.entries)}${pages}${extra}`
  }
  /** The page the request asks for: from its cursor if it has one. */
  const at = (request: FastifyRequest) => ({ limit: PAGE_SIZE, ...(queryParam(request, 'cursor') ? { after: queryParam(request, 'cursor') } : {}) })

  const conversionsCsv = (window: { startTime: string; endTime: string }) => `/console/on-demand/conversions.csv?${new URLSearchParams(window)}`
  windowPage(
    '/console/on-demand/conversions',
    'Conversions',
    'conversions',
    MAX_WINDOW_DAYS,
    EVENT_DAYS,
    () => html`<p class="muted">Decision Manager reviews converted from one decision to another.</p>`,
    (request, org, window) => onDemand.conversionPage(org, window, at(request)),
    (value, window, request) =>
      eventPage('/console/on-demand/conversions', 'conversions', value, conversionsTable, window, request, html`<p><a href="${conversionsCsv(window)}" download>Download the window's conversions as CSV</a> (the API's <code>text/csv</code> answer)</p>`),
  )

  scope.get('/console/on-demand/conversions.csv', async (request, reply) => {
    const s = session(request)
    const window = windowOf(request, deps.clock.now().getTime(), EVENT_DAYS)
    return sendAnswer(reply, await onDemand.conversionDetails(s.actingId, window, 'text/csv'), 'conversion-details.csv')
  })

  windowPage(
    '/console/on-demand/notifications-of-change',
    'Notifications of change',
    'notifications of change',
    MAX_WINDOW_DAYS,
    EVENT_DAYS,
    () => html`<p class="muted">Corrected bank account data for eCheck payments, as the bank sent it.</p>`,
    (request, org, window) => onDemand.noticePage(org, window, at(request)),
    (value, window, request) => eventPage('/console/on-demand/notifications-of-change', 'notifications of change', value, noticesTable, window, request),
  )
}
