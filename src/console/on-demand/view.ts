// What the on-demand pages show: the window form each report shares, the links between the reports, and each
// report's answer as a table. Amounts are the service's exact decimal text, shown as they are.
import type { ConversionEntry, NetFundings, NoticeEntry, PaymentBatchSummaries, PurchaseRefundDetails } from '../../reporting/on-demand/schemas.js'
import { html, type Html } from '../layout.js'

/** The on-demand reports the service offers, each a page. */
export const REPORTS: readonly [string, string][] = [
  ['/console/on-demand', 'Purchases and refunds'],
  ['/console/on-demand/net-funding', 'Net funding'],
  ['/console/on-demand/batch-summaries', 'Batch summaries'],
  ['/console/on-demand/conversions', 'Conversions'],
  ['/console/on-demand/notifications-of-change', 'Notifications of change'],
]

export function reportLinks(current: string): Html {
  return html`<nav aria-label="On-demand reports"><ul>${REPORTS.map(
    ([href, label]) => html`<li>${href === current ? html`<a href="${href}" aria-current="page"><strong>${label}</strong></a>` : html`<a href="${href}">${label}</a>`}</li>`,
  )}</ul></nav>`
}

export const options = (values: readonly string[], selected: string, labels: Record<string, string> = {}) =>
  values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${labels[v] ?? v}</option>`)

/** The start and end inputs of a window, with the longest window the report takes. */
export function windowInputs(startTime: string, endTime: string, maxDays: number): Html {
  return html`<label for="startTime">Start (ISO 8601 with a zone, inclusive)</label>
<input id="startTime" name="startTime" value="${startTime}" required maxlength="40" aria-describedby="window-limit">
<label for="endTime">End (exclusive)</label>
<input id="endTime" name="endTime" value="${endTime}" required maxlength="40" aria-describedby="window-limit">
<p class="muted" id="window-limit">At most ${maxDays} days, e.g. 2026-03-01T00:00:00Z.</p>`
}

/** The one-line reason a query was refused. */
export const refusal = (message: string | undefined) => (message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : '')

export const none = (what: string) => html`<p class="muted">No ${what} in this window.</p>`

/** A link between a report's pages: where, what it says, and its rel (prev or next) if it is one. */
export type PageLink = readonly [href: string, text: string, rel?: 'prev' | 'next']

/** The links between a report's pages (those given), as a list in a navigation landmark named `label`; none, nothing. */
export function pager(label: string, links: readonly (PageLink | undefined | false)[]): Html | string {
  const given = links.filter((l): l is PageLink => Boolean(l))
  if (given.length === 0) return ''
  return html`<nav aria-label="${label}"><ul>
${given.map((l) => html`<li><a href="${l[0]}"${l[2] ? html` rel="${l[2]}"` : ''}>${l[1]}</a></li>`)}
</ul></nav>`
}

/** What an event page's caption says: how many, of which instants (the first's and last's), oldest first. */
const shown = (n: number, what: string, first: string | undefined, last: string | undefined) => `${n} ${what}${first && last ? `, ${first} to ${last}` : ''}, oldest first`

/** A page of purchase and refund details: a row per request, its settlement and settlement status beside it. */
export function detailsTable(body: PurchaseRefundDetails): Html {
  const settlements = new Map((body.settlements ?? []).map((s) => [s.requestId, s]))
  const statuses = new Map((body.settlementStatuses ?? []).map((s) => [s.requestId, s]))
  const first = body.offset + 1
  return html`<div class="table" tabindex="0" role="region" aria-label="Purchases and refunds (scrolls sideways)"><table><caption>Requests ${first} to ${body.offset + body.pageResults}</caption>
<thead><tr><th scope="col">Request id</th><th scope="col">Type</th><th scope="col">Submitted</th><th scope="col">Amount</th><th scope="col">Currency</th><th scope="col">Method</th><th scope="col">Status</th><th scope="col">Merchant reference</th></tr></thead>
<tbody>${(body.requestDetails ?? []).map((r) => {
    const s = settlements.get(r.requestId)
    return html`<tr><td>${r.requestId}</td><td>${s?.transactionType}</td><td>${s?.submissionTime}</td><td>${s?.amount}</td><td>${s?.currencyCode}</td><td>${s?.paymentMethod}</td><td>${statuses.get(r.requestId)?.status}</td><td>${r.merchantReferenceNumber}</td></tr>`
  })}</tbody></table></div>`
}

export function fundingTables(body: NetFundings): Html {
  const currencies = [...new Set(body.netTotal.map((t) => t.currency))]
  const of = (list: { currency: string; value: string }[], currency: string) => list.find((t) => t.currency === currency)?.value ?? '0'
  return html`<div class="table" tabindex="0" role="region" aria-label="Net funding by currency (scrolls sideways)"><table><caption>Totals by currency, ${body.startTime} to ${body.endTime}</caption>
<thead><tr><th scope="col">Currency</th><th scope="col">Purchases</th><th scope="col">Refunds</th><th scope="col">Fees</th><th scope="col">Chargebacks</th><th scope="col">Net</th></tr></thead>
<tbody>${currencies.map(
    (c) =>
      html`<tr><th scope="row">${c}</th><td>${of(body.totalPurchases, c)}</td><td>${of(body.totalRefunds, c)}</td><td>${of(body.totalFees, c)}</td><td>${of(body.totalChargebacks, c)}</td><td><strong>${of(body.netTotal, c)}</strong></td></tr>`,
  )}</tbody></table></div>
<h3>By type and payment subtype</h3>
<div class="table" tabindex="0" role="region" aria-label="Net funding by type (scrolls sideways)"><table><caption>Net funding summaries</caption>
<thead><tr><th scope="col">Type</th><th scope="col">Subtype</th><th scope="col">Currency</th><th scope="col">Conveyed</th><th scope="col">Conveyed amount</th><th scope="col">Settled</th><th scope="col">Funded</th><th scope="col">Funded amount</th></tr></thead>
<tbody>${body.netFundingSummaries.map(
    (l) =>
      html`<tr><td>${l.type}</td><td>${l.paymentSubType || '—'}</td><td>${l.currencyCode}</td><td>${l.conveyedCount}</td><td>${l.conveyedAmount}</td><td>${l.settledCount}</td><td>${l.fundedCount}</td><td>${l.fundedAmount}</td></tr>`,
  )}</tbody></table></div>`
}

export function summariesTable(body: PaymentBatchSummaries): Html {
  const named = body.paymentBatchSummaries.some((s) => s.merchantId || s.accountId)
  return html`<div class="table" tabindex="0" role="region" aria-label="Batch summaries (scrolls sideways)"><table><caption>Batch summaries, ${body.startTime} to ${body.endTime}</caption>
<thead><tr><th scope="col">Period</th>${named ? html`<th scope="col">Merchant or account</th>` : ''}<th scope="col">Currency</th><th scope="col">Payment subtype</th><th scope="col">Sales</th><th scope="col">Sales amount</th><th scope="col">Credits</th><th scope="col">Credit amount</th></tr></thead>
<tbody>${body.paymentBatchSummaries.map(
    (s) =>
      html`<tr><td>${s.startTime} – ${s.endTime}</td>${named ? html`<td>${s.merchantId ?? s.accountId}</td>` : ''}<td>${s.currencyCode}</td><td>${s.paymentSubTypeDescription}</td><td>${s.salesCount}</td><td>${s.salesAmount}</td><td>${s.creditCount}</td><td>${s.creditAmount}</td></tr>`,
  )}</tbody></table></div>`
}

export function conversionsTable(list: readonly ConversionEntry[]): Html {
  return html`<div class="table" tabindex="0" role="region" aria-label="Conversions (scrolls sideways)"><table><caption>${shown(list.length, 'conversions', list[0]?.conversionTime, list.at(-1)?.conversionTime)}</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Request id</th><th scope="col">Merchant reference</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Reviewer</th><th scope="col">Queue</th></tr></thead>
<tbody>${list.map(
    (c) => html`<tr><td>${c.conversionTime}</td><td>${c.requestId}</td><td>${c.merchantReferenceNumber}</td><td>${c.originalDecision}</td><td>${c.newDecision}</td><td>${c.reviewer}</td><td>${c.queue}</td></tr>`,
  )}</tbody></table></div>`
}

export function noticesTable(list: readonly NoticeEntry[]): Html {
  return html`<div class="table" tabindex="0" role="region" aria-label="Notifications of change (scrolls sideways)"><table><caption>${shown(list.length, 'notifications of change', list[0]?.time, list.at(-1)?.time)}</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Code</th><th scope="col">Merchant reference</th><th scope="col">Account type</th><th scope="col">Routing number</th><th scope="col">Account number</th><th scope="col">Name</th></tr></thead>
<tbody>${list.map(
    (n) => html`<tr><td>${n.time}</td><td>${n.code}</td><td>${n.merchantReferenceNumber}</td><td>${n.accountType}</td><td>${n.routingNumber}</td><td>${n.accountNumber}</td><td>${n.consumerName}</td></tr>`,
  )}</tbody></table></div>`
}
