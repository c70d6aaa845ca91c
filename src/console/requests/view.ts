// What the request log pages show: the filters' form, the calls' table with its keyset link to older calls, one
// call's details, and the notice that this server records nothing when REQUEST_LOG is off.
import { AUTH_SCHEMES } from '../../platform/http/caller.js'
import type { RequestLogEntry, RequestLogPage } from '../../request-log/service.js'
import { html, type Html } from '../layout.js'

export const FILTERS = ['from', 'to', 'method', 'status', 'path', 'scheme', 'keyId', 'cursor'] as const
export type Filters = Record<(typeof FILTERS)[number], string>

const METHODS = ['', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const STATUSES = ['', '2xx', '3xx', '4xx', '5xx', '1xx']
const SCHEMES = ['', ...AUTH_SCHEMES]

const options = (values: readonly string[], selected: string) => values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v || 'Any'}</option>`)

/** Plainly, when this server records nothing: an empty log is then no sign that no call was made. */
export function recordingNotice(settings: { enabled: boolean; retentionDays: number }): Html {
  return settings.enabled
    ? html`<p class="muted">Calls are kept ${settings.retentionDays} days. Times are UTC.</p>`
    : html`<p class="notice" role="note" id="recording-off"><strong>This server does not record API calls</strong>: it runs with <code>REQUEST_LOG=off</code> (production's default). Nothing is listed here until it runs with <code>REQUEST_LOG=on</code>; calls made meanwhile are not recorded.</p>`
}

export function filtersForm(f: Filters): Html {
  return html`<section><h2>Filter</h2><form method="get" action="/console/requests">
<label for="from">From (UTC)</label><input type="datetime-local" id="from" name="from" value="${f.from}" step="1">
<label for="to">Before (UTC)</label><input type="datetime-local" id="to" name="to" value="${f.to}" step="1">
<label for="method">Method</label><select id="method" name="method">${options(METHODS, f.method)}</select>
<label for="status">Status</label><select id="status" name="status">${options(STATUSES, f.status)}</select>
<label for="path">Path starts with</label><input id="path" name="path" value="${f.path}" maxlength="2048" spellcheck="false" placeholder="/reporting/v3/reports">
<label for="scheme">Scheme</label><select id="scheme" name="scheme">${options(SCHEMES, f.scheme)}</select>
<label for="keyId">Key id</label><input id="keyId" name="keyId" value="${f.keyId}" maxlength="128" spellcheck="false">
<button type="submit">Filter</button> <a href="/console/requests">Clear the filters</a></form></section>`
}

/** The filters as a query string, with `cursor` replaced. */
function linkWith(f: Filters, cursor: string | null): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(f)) if (k !== 'cursor' && v) q.set(k, v)
  if (cursor) q.set('cursor', cursor)
  const text = q.toString()
  return `/console/requests${text ? `?${text}` : ''}`
}

const ms = (e: RequestLogEntry) => (e.durationMs < 10 ? e.durationMs.toFixed(2) : e.durationMs.toFixed(0))

export function callsTable(organizationId: string, result: RequestLogPage, f: Filters): Html {
  const paging = html`<p>${f.cursor ? html`<a href="${linkWith(f, null)}">Newest calls</a> ` : ''}${result.nextCursor ? html`<a href="${linkWith(f, result.nextCursor)}" rel="next">Older calls</a>` : ''}</p>`
  if (result.entries.length === 0) return html`<p class="muted">No calls${f.cursor ? ' older than these' : ''} match.</p>${paging}`
  return html`<div class="table"><table><caption class="muted">Calls of ${organizationId}, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">ms</th><th scope="col">Correlation id</th><th scope="col">Scheme</th><th scope="col">Key id</th></tr></thead>
<tbody>${result.entries.map(
  (e) => html`<tr><td>${e.at.replace('T', ' ').replace('Z', '')}</td><td>${e.method}</td><td class="path">${e.path}</td><td>${e.status}</td><td>${ms(e)}</td><td><a href="/console/requests/${encodeURIComponent(e.correlationId)}">${e.correlationId}</a></td><td>${e.scheme}</td><td>${e.keyId ?? '—'}</td></tr>`,
)}</tbody></table></div>${paging}`
}

export function callDetails(correlationId: string, calls: RequestLogEntry[]): Html {
  return html`<h1>Call ${correlationId}</h1>
${calls.length > 1 ? html`<p class="muted">${calls.length} calls were sent with this correlation id (a client may choose it), newest first.</p>` : ''}
${calls.map((e) => {
  const rows: [string, string][] = [
    ['Time (UTC)', e.at],
    ['Method', e.method],
    ['Path', e.path],
    ['Status', String(e.status)],
    ['Duration', `${ms(e)} ms`],
    ['Correlation id', e.correlationId],
    ['Scheme', e.scheme],
    ['Key id', e.keyId ?? '—'],
    ['Organization', e.organizationId ?? '—'],
  ]
  return html`<section><dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${e.keyId ? html`<p><a href="/console/requests?keyId=${encodeURIComponent(e.keyId)}">Every call with this key</a></p>` : ''}</section>`
})}
<p><a href="/console/requests">Back to the request log</a></p>`
}
