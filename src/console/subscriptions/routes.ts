// /console/subscriptions: the organization's report subscriptions (each next run in its own time zone), and the
// forms that create, edit and delete one, through the same SubscriptionsService the API's routes use.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../../platform/clock.js'
import { DomainError, type ErrorDetail } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import type { DefinitionsService } from '../../reporting/report-definitions/service.js'
import type { Subscription, SubscriptionBody } from '../../reporting/report-subscriptions/schemas.js'
import type { SubscriptionsService } from '../../reporting/report-subscriptions/service.js'
import { TIME_ZONES } from '../../reporting/report-subscriptions/time-zones.js'
import { chrome, field, fields, queryParam, sendPage, session } from '../http.js'
import { csrfField, html, page, type Html } from '../layout.js'
import { nextRunText, startHhmm } from './view.js'

export interface ConsoleSubscriptionDeps {
  clock: Clock
  subscriptions: Pick<SubscriptionsService, 'list' | 'get' | 'put' | 'remove'>
  definitions: Pick<DefinitionsService, 'list' | 'get' | 'find'>
}

const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED']
const FORMATS = ['text/csv', 'application/xml']

const options = (values: readonly string[], selected: string) => values.map((v) => html`<option${v === selected ? html` selected` : ''}>${v}</option>`)

/** Problems of a refused form, as the service named them. */
export const problems = (details: ErrorDetail[]) =>
  html`<div class="error" role="alert" id="form-errors"><p>That could not be saved:</p><ul>${details.map((d) => html`<li>${d.field ? `${d.field}: ` : ''}${d.reason}</li>`)}</ul></div>`

export async function consoleSubscriptions(scope: App, deps: ConsoleSubscriptionDeps): Promise<void> {
  const { subscriptions, definitions } = deps

  function form(request: FastifyRequest, definitionName: string, current: Partial<Subscription>, editing: boolean, refused?: ErrorDetail[]): Html {
    const s = session(request)
    const definition = definitions.get(definitionName, {})
    const chosen = new Set(current.reportFields ?? definition.attributes.filter((a) => a.default).map((a) => a.name))
    const action = editing ? `/console/subscriptions/${encodeURIComponent(current.reportName ?? '')}` : '/console/subscriptions'
    return html`<h1>${editing ? `Edit ${current.reportName ?? ''}` : 'New subscription'}</h1>
${refused ? problems(refused) : ''}
<form method="post" action="${action}">${csrfField(s.csrfToken)}
<input type="hidden" name="reportDefinitionName" value="${definition.reportDefintionName}">
<p>Report definition: <strong>${definition.reportDefintionName}</strong></p>
<label for="reportName">Name</label>
<input id="reportName" name="reportName" value="${current.reportName ?? ''}" required maxlength="80"${editing ? html` readonly` : ''}>
<label for="reportMimeType">Format</label>
<select id="reportMimeType" name="reportMimeType">${options(FORMATS, current.reportMimeType ?? 'text/csv')}</select>
<label for="reportFrequency">Frequency</label>
<select id="reportFrequency" name="reportFrequency">${options(FREQUENCIES, current.reportFrequency ?? 'DAILY')}</select>
<label for="reportInterval">Interval (USER_DEFINED only, e.g. PT2H30M)</label>
<input id="reportInterval" name="reportInterval" value="${current.reportInterval ?? ''}">
<label for="timezone">Time zone</label>
<select id="timezone" name="timezone">${options(TIME_ZONES, current.timezone ?? 'GMT')}</select>
<label for="startTime">Start time (HHMM, in that time zone)</label>
<input id="startTime" name="startTime" value="${current.startTime && current.timezone ? startHhmm({ startTime: current.startTime, timezone: current.timezone }) : '0000'}" inputmode="numeric" pattern="[0-9]{4}">
<label for="startDay">Start day (WEEKLY: 1 = Sunday to 7; MONTHLY: 1 to 31)</label>
<input id="startDay" name="startDay" value="${current.startDay ?? ''}" inputmode="numeric">
<fieldset><legend>Fields</legend>
${definition.attributes.map((a, i) => html`<div><input type="checkbox" id="f-${i}" name="reportFields" value="${a.name}"${chosen.has(a.name) ? html` checked` : ''}> <label class="check" for="f-${i}">${a.name}</label></div>`)}
</fieldset>
<button type="submit">${editing ? 'Save' : 'Create subscription'}</button>
</form>`
  }

  function bodyOf(request: FastifyRequest, organizationId: string): SubscriptionBody {
    const startDay = field(request, 'startDay')
    const interval = field(request, 'reportInterval')
    return {
      organizationId,
      reportDefinitionName: field(request, 'reportDefinitionName'),
      reportName: field(request, 'reportName'),
      reportFields: fields(request, 'reportFields'),
      reportMimeType: field(request, 'reportMimeType'),
      reportFrequency: field(request, 'reportFrequency'),
      ...(interval ? { reportInterval: interval } : {}),
      timezone: field(request, 'timezone'),
      startTime: field(request, 'startTime'),
      ...(startDay ? { startDay } : {}),
    }
  }

  /** Saves through the service; a refused form comes back with the service's own reasons (400). */
  async function save(request: FastifyRequest, reply: FastifyReply, editing: boolean) {
    const s = session(request)
    const body = bodyOf(request, s.actingId)
    try {
      await subscriptions.put(s.actingId, body)
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid' || !definitions.find(body.reportDefinitionName)) throw err
      const current: Partial<Subscription> = {
        reportName: body.reportName,
        reportFields: body.reportFields,
        reportMimeType: body.reportMimeType,
        reportFrequency: body.reportFrequency,
        ...(body.reportInterval ? { reportInterval: body.reportInterval } : {}),
        ...(body.timezone ? { timezone: body.timezone } : {}),
      }
      return sendPage(reply, page('Subscription', form(request, body.reportDefinitionName, current, editing, err.details), chrome(s)), 400)
    }
    return reply.redirect('/console/subscriptions', 303)
  }

  scope.get('/console/subscriptions', async (request, reply) => {
    const s = session(request)
    const list = await subscriptions.list(s.actingId)
    const now = deps.clock.now().getTime()
    return sendPage(
      reply,
      page(
        'Subscriptions',
        html`<h1>Report subscriptions</h1>
<p><a href="/console/subscriptions/new">New subscription</a></p>
${list.length === 0
  ? html`<p class="muted">No subscriptions yet.</p>`
  : html`<div class="table"><table><caption class="muted">${list.length} subscriptions of ${s.actingId}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Definition</th><th scope="col">Frequency</th><th scope="col">Format</th><th scope="col">Next run</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map(
  (sub) => html`<tr><td>${sub.reportName}</td><td>${sub.reportDefinitionName}</td><td>${sub.reportFrequency}${sub.reportInterval ? ` ${sub.reportInterval}` : ''}</td><td>${sub.reportMimeType}</td><td>${nextRunText(sub, now) ?? '—'}</td>
<td><a href="/console/subscriptions/${encodeURIComponent(sub.reportName)}">Edit<span class="skip"> ${sub.reportName}</span></a>
<form class="inline" method="post" action="/console/subscriptions/${encodeURIComponent(sub.reportName)}/delete">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Delete ${sub.reportName}">Delete</button></form></td></tr>`,
)}</tbody></table></div>`}`,
        chrome(s),
      ),
    )
  })

  scope.get('/console/subscriptions/new', async (request, reply) => {
    const s = session(request)
    const name = queryParam(request, 'definition')
    if (name && definitions.find(name)) return sendPage(reply, page('New subscription', form(request, name, {}, false), chrome(s)))
    const list = definitions.list({})
    return sendPage(
      reply,
      page(
        'New subscription',
        html`<h1>New subscription</h1>
<form method="get" action="/console/subscriptions/new">
<label for="definition">Report definition</label>
<select id="definition" name="definition">${list.map((d) => html`<option value="${d.reportDefintionName}">${d.reportDefintionName}: ${d.description}</option>`)}</select>
<button type="submit">Next: name, schedule and fields</button>
</form>`,
        chrome(s),
      ),
    )
  })

  scope.post('/console/subscriptions', async (request, reply) => save(request, reply, false))

  scope.get<{ Params: { name: string } }>('/console/subscriptions/:name', async (request, reply) => {
    const s = session(request)
    const sub = await subscriptions.get(s.actingId, request.params.name)
    return sendPage(reply, page('Edit subscription', form(request, sub.reportDefinitionName, sub, true), chrome(s)))
  })

  scope.post<{ Params: { name: string } }>('/console/subscriptions/:name', async (request, reply) => {
    const s = session(request)
    // The name is the subscription's key: the one edited must exist (404 as for another organization's).
    await subscriptions.get(s.actingId, request.params.name)
    if (field(request, 'reportName') !== request.params.name) return reply.redirect('/console/subscriptions', 303)
    return save(request, reply, true)
  })

  scope.post<{ Params: { name: string } }>('/console/subscriptions/:name/delete', async (request, reply) => {
    await subscriptions.remove(session(request).actingId, request.params.name)
    return reply.redirect('/console/subscriptions', 303)
  })
}
