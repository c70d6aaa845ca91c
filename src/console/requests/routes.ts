// /console/requests: the acting organization's own API calls from the request log (time, method, path with secrets
// masked, status, duration, correlation id, scheme, key id), filtered and keyset-paged, and one call found by the
// correlation id a caller quotes, through the RequestLogService (its tenant rule: only the organization's rows).
// The log records only while the server runs with REQUEST_LOG=on: the page says so when it is off.
import type { FastifyRequest } from 'fastify'
import { DomainError } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { isPlainCorrelationId } from '../../platform/http/correlation.js'
import type { RequestLogQuery, RequestLogService } from '../../request-log/service.js'
import { chrome, queryParam, sendPage, session } from '../http.js'
import { html, page } from '../layout.js'
import { callDetails, callsTable, filtersForm, FILTERS, recordingNotice, type Filters } from './view.js'

export interface ConsoleRequestDeps {
  requestLog: Pick<RequestLogService, 'list' | 'findForOrganization'>
  /** Whether this server records calls (REQUEST_LOG), and for how many days it keeps them. */
  requestLogSettings: { enabled: boolean; retentionDays: number }
}

const PAGE_SIZE = 50
/** A datetime-local input's value (no zone): read as UTC, as the form's labels say. */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/
const utc = (value: string) => (LOCAL_TIME.test(value) ? `${value}Z` : value)

function filtersOf(request: FastifyRequest): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, queryParam(request, name).trim()])) as Filters
}

function queryOf(f: Filters): RequestLogQuery {
  return {
    limit: PAGE_SIZE,
    ...(f.from ? { from: utc(f.from) } : {}),
    ...(f.to ? { to: utc(f.to) } : {}),
    ...(f.method ? { method: f.method } : {}),
    ...(f.status ? { statusClass: f.status } : {}),
    ...(f.path ? { pathPrefix: f.path } : {}),
    ...(f.scheme ? { scheme: f.scheme } : {}),
    ...(f.keyId ? { keyId: f.keyId } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  }
}

export async function consoleRequests(scope: App, deps: ConsoleRequestDeps): Promise<void> {
  const { requestLog, requestLogSettings: settings } = deps

  scope.get('/console/requests', async (request, reply) => {
    const s = session(request)
    const filters = filtersOf(request)
    let refused: string | undefined
    let result: Awaited<ReturnType<typeof requestLog.list>> = { entries: [], nextCursor: null }
    try {
      result = await requestLog.list(s.actingId, queryOf(filters))
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid') throw err
      refused = err.details.map((d) => `${d.field === 'statusClass' ? 'status' : d.field === 'pathPrefix' ? 'path' : (d.field ?? '')} ${d.reason}`).join('; ')
    }
    const body = html`<h1>API request log</h1>
${recordingNotice(settings)}
<section><h2>Find a call</h2><form method="get" action="/console/requests/find">
<label for="correlationId">Correlation id (the <code>X-CorrelationID</code> the API answered)</label>
<input id="correlationId" name="correlationId" maxlength="128" spellcheck="false" autocomplete="off" required>
<button type="submit">Find the call</button></form></section>
${filtersForm(filters)}
${refused ? html`<p class="error" role="alert" id="filter-error">Cannot filter by that: ${refused}.</p>` : ''}
${callsTable(s.actingId, result, filters)}`
    return sendPage(reply, page('API request log', body, chrome(s)), refused ? 400 : 200)
  })

  scope.get('/console/requests/find', async (request, reply) => {
    const s = session(request)
    const id = queryParam(request, 'correlationId').trim()
    if (isPlainCorrelationId(id)) return reply.redirect(`/console/requests/${encodeURIComponent(id)}`, 303)
    const body = html`<h1>Find a call</h1><p class="error" role="alert">A correlation id is 1 to 128 letters, digits, <code>_ . : -</code>: copy it from the <code>X-CorrelationID</code> header of the API's answer.</p><p><a href="/console/requests">Back to the request log</a></p>`
    return sendPage(reply, page('Find a call', body, chrome(s)), 400)
  })

  scope.get<{ Params: { correlationId: string } }>('/console/requests/:correlationId', async (request, reply) => {
    const s = session(request)
    const id = request.params.correlationId
    // Another organization's call, an unknown id and a malformed one are alike: not found.
    const calls = isPlainCorrelationId(id) ? await requestLog.findForOrganization(s.actingId, id) : []
    if (calls.length === 0) {
      const body = html`<h1>Not found</h1><p class="error" role="alert">There is nothing here, or it is not yours to see: no call of ${s.actingId} in the last ${settings.retentionDays} days has this correlation id.</p>
${recordingNotice(settings)}<p><a href="/console/requests">Back to the request log</a></p>`
      // Without the session's header (its CSRF token): another's id and an unknown one answer the same bytes.
      return sendPage(reply, page('Not found', body), 404)
    }
    return sendPage(reply, page(`Call ${id}`, callDetails(id, calls), chrome(s)))
  })
}
