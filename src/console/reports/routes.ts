// /console/reports: search (time frame, status, frequency, name), a report's details and its file (sent by the API's
// own download code, so the same bytes), and the one-time report form, all through the ReportsService the API uses.
import type { FastifyRequest } from 'fastify'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { Clock } from '../../platform/clock.js'
import { DomainError, notFound } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { sendReport } from '../../reporting/report-downloads/download.js'
import type { DefinitionsService } from '../../reporting/report-definitions/service.js'
import { TRANSACTION_REQUEST_FIELDS } from '../../reporting/report-definitions/transaction-request-fields.js'
import type { ReportsService } from '../../reporting/reports/service.js'
import type { SearchQuery } from '../../reporting/reports/schemas.js'
import { TIME_ZONES } from '../../reporting/report-subscriptions/time-zones.js'
import { chrome, field, fields, queryParam, sendPage, session } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import { problems } from '../subscriptions/routes.js'

export interface ConsoleReportDeps {
  clock: Clock
  reports: Pick<ReportsService, 'search' | 'get' | 'createOneTime' | 'instance'>
  definitions: Pick<DefinitionsService, 'list' | 'get' | 'find'>
  /** The report files' store, as the API's download reads it. */
  blobs: BlobStore
}

const REPORT_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const STATUSES = ['', 'COMPLETED', 'PENDING', 'QUEUED', 'RUNNING', 'ERROR', 'NO_DATA']
const FREQUENCIES = ['', 'DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED', 'ADHOC']
const FORMATS = ['text/csv', 'application/xml', 'application/json']
/** The one-time form's preset: the reference's 503 TransactionRequestClass fields. */
const PRESET_503 = 'transaction-request-503'

const options = (values: readonly string[], selected: string) => values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v || 'Any'}</option>`)
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export async function consoleReports(scope: App, deps: ConsoleReportDeps): Promise<void> {
  const { reports, definitions } = deps

  scope.get('/console/reports', async (request, reply) => {
    const s = session(request)
    const now = deps.clock.now().getTime()
    const from = queryParam(request, 'from') || day(now - 7 * 86_400_000)
    const to = queryParam(request, 'to') || day(now + 86_400_000)
    const status = queryParam(request, 'status')
    const frequency = queryParam(request, 'frequency')
    const name = queryParam(request, 'name')
    const query: SearchQuery = {
      startTime: `${from}T00:00:00.000Z`,
      endTime: `${to}T00:00:00.000Z`,
      timeQueryType: 'reportTimeFrame',
      ...(status ? { reportStatus: status } : {}),
      ...(frequency ? { reportFrequency: frequency } : {}),
      ...(name ? { reportName: name } : {}),
    }
    let results: Awaited<ReturnType<typeof reports.search>> = []
    let refused: string | undefined
    try {
      results = await reports.search(s.actingId, query)
    } catch (err) {
      if (!(err instanceof DomainError) || (err.kind !== 'not_found' && err.kind !== 'invalid')) throw err
      if (err.kind === 'invalid') refused = err.details.map((d) => d.reason).join('; ')
    }
    return sendPage(
      reply,
      page(
        'Reports',
        html`<h1>Reports</h1>
<p><a href="/console/reports/new">New one-time report</a></p>
<section><h2>Search</h2><form method="get" action="/console/reports">
<label for="from">Window from (UTC date)</label><input type="date" id="from" name="from" value="${from}">
<label for="to">Window to (UTC date, exclusive)</label><input type="date" id="to" name="to" value="${to}">
<label for="status">Status</label><select id="status" name="status">${options(STATUSES, status)}</select>
<label for="frequency">Frequency</label><select id="frequency" name="frequency">${options(FREQUENCIES, frequency)}</select>
<label for="name">Name</label><input id="name" name="name" value="${name}" maxlength="128">
<button type="submit">Search</button></form></section>
${refused ? html`<p class="error" role="alert">${refused}</p>` : ''}
${results.length === 0
  ? html`<p class="muted">No reports in this time frame.</p>`
  : html`<div class="table"><table><caption class="muted">${results.length} reports</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Frequency</th><th scope="col">Window</th><th scope="col">Format</th></tr></thead>
<tbody>${results.map(
  (r) => html`<tr><td><a href="/console/reports/${r.reportId}">${r.reportName}</a></td><td>${r.status}</td><td>${r.reportFrequency}</td><td>${r.reportStartTime} – ${r.reportEndTime}</td><td>${r.reportMimeType}</td></tr>`,
)}</tbody></table></div>`}`,
        chrome(s),
      ),
    )
  })

  /** A report of the acting organization; another's, or an unknown or malformed id, is not found alike. */
  async function detail(request: FastifyRequest<{ Params: { id: string } }>) {
    if (!REPORT_ID.test(request.params.id)) throw notFound()
    return reports.get(session(request).actingId, request.params.id)
  }

  scope.get<{ Params: { id: string } }>('/console/reports/:id', async (request, reply) => {
    const s = session(request)
    const r = await detail(request)
    const rows: [string, string][] = [
      ['Name', r.reportName],
      ['Status', r.reportStatus],
      ['Report id', r.reportId],
      ['Organization', r.organizationId],
      ['Frequency', r.reportFrequency],
      ['Format', r.reportMimeType],
      ['Window', `${r.reportStartTime} – ${r.reportEndTime}`],
      ['Time zone', r.timezone],
      ['Fields', r.reportFields.join(', ')],
    ]
    return sendPage(
      reply,
      page(
        r.reportName,
        html`<h1>${r.reportName}</h1><section><dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
${r.reportStatus === 'COMPLETED' ? html`<p><a href="/console/reports/${r.reportId}/download">Download the file (${r.reportMimeType})</a></p>` : html`<p class="muted">The file can be downloaded once the report is completed. Reload this page to see its status.</p>`}`,
        chrome(s),
      ),
    )
  })

  scope.get<{ Params: { id: string } }>('/console/reports/:id/download', async (request, reply) => {
    const r = await detail(request)
    const row = r.reportStatus === 'COMPLETED' ? await reports.instance(r.reportId) : undefined
    if (!row) throw notFound()
    return sendReport(request, reply, row, deps.blobs)
  })

  function oneTimeForm(request: FastifyRequest, definitionName: string, refused?: DomainError) {
    const s = session(request)
    const definition = definitions.get(definitionName, {})
    const filter = queryParam(request, 'q').toLowerCase()
    const now = deps.clock.now().getTime()
    const shown = definition.attributes.filter((a) => !filter || a.name.toLowerCase().includes(filter) || a.description.toLowerCase().includes(filter))
    const name = definition.reportDefintionName
    return page(
      'New one-time report',
      html`<h1>New one-time report: ${name}</h1>
${refused ? problems(refused.details) : ''}
<form method="get" action="/console/reports/new"><input type="hidden" name="definition" value="${name}">
<label for="q">Find fields</label><input type="search" id="q" name="q" value="${filter}"><button type="submit" class="secondary">Filter the fields</button></form>
<form method="post" action="/console/reports">${csrfField(s.csrfToken)}
<input type="hidden" name="reportDefinitionName" value="${name}">
<label for="reportName">Name</label><input id="reportName" name="reportName" required maxlength="80" pattern="[A-Za-z0-9_ \\-]+">
<label for="reportMimeType">Format</label><select id="reportMimeType" name="reportMimeType">${options(FORMATS, 'text/csv')}</select>
<label for="timezone">Time zone</label><select id="timezone" name="timezone">${options(TIME_ZONES, 'GMT')}</select>
<label for="reportStartTime">Start (ISO 8601)</label><input id="reportStartTime" name="reportStartTime" value="${new Date(now - 86_400_000).toISOString().slice(0, 10)}T00:00:00Z" required>
<label for="reportEndTime">End (ISO 8601)</label><input id="reportEndTime" name="reportEndTime" value="${new Date(now).toISOString().slice(0, 10)}T00:00:00Z" required>
<fieldset><legend>Fields</legend>
<div><input type="checkbox" id="preset" name="preset" value="${PRESET_503}"> <label class="check" for="preset">The reference's ${TRANSACTION_REQUEST_FIELDS.length} TransactionRequestClass fields (instead of those below)</label></div>
${shown.map((a, i) => html`<div><input type="checkbox" id="f-${i}" name="reportFields" value="${a.name}"${a.default ? html` checked` : ''}> <label class="check" for="f-${i}">${a.name}</label></div>`)}
</fieldset>
<button type="submit">Create the report</button></form>`,
      chrome(s),
    )
  }

  scope.get('/console/reports/new', async (request, reply) => {
    const s = session(request)
    const name = queryParam(request, 'definition')
    if (name && definitions.find(name)) return sendPage(reply, oneTimeForm(request, name))
    return sendPage(
      reply,
      page(
        'New one-time report',
        html`<h1>New one-time report</h1><form method="get" action="/console/reports/new">
<label for="definition">Report definition</label>
<select id="definition" name="definition">${definitions.list({}).map((d) => html`<option value="${d.reportDefintionName}">${d.reportDefintionName}: ${d.description}</option>`)}</select>
<button type="submit">Next: window and fields</button></form>`,
        chrome(s),
      ),
    )
  })

  scope.post('/console/reports', async (request, reply) => {
    const s = session(request)
    const definitionName = field(request, 'reportDefinitionName')
    const reportFields = field(request, 'preset') === PRESET_503 ? [...TRANSACTION_REQUEST_FIELDS] : fields(request, 'reportFields')
    try {
      const { reportId } = await reports.createOneTime(s.actingId, {
        reportDefinitionName: definitionName,
        reportName: field(request, 'reportName'),
        reportMimeType: field(request, 'reportMimeType'),
        timezone: field(request, 'timezone'),
        reportStartTime: field(request, 'reportStartTime'),
        reportEndTime: field(request, 'reportEndTime'),
        reportFields,
      })
      return reply.redirect(`/console/reports/${reportId}`, 303)
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid' || !definitions.find(definitionName)) throw err
      return sendPage(reply, oneTimeForm(request, definitionName, err), 400)
    }
  })
}
