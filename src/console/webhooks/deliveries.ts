// /console/webhooks/deliveries: the delivery log of the acting organization (the notifications to its subscriptions,
// newest first, each with its every attempt), filtered by subscription, status, event type and time and paged by
// keyset; one notification with its attempts; and replays, of one notification or of a filtered set, through the
// webhooks module's replays service (the rules of POST /webhooks/{webhookId}/replays).
import type { FastifyRequest } from 'fastify'
import { DomainError, invalid, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { PRODUCTS, TEST_EVENT } from '../../webhooks/catalog.js'
import type { NotificationStatus } from '../../webhooks/tables.js'
import { chrome, field, queryParam, sendPage, session } from '../http.js'
import { csrfField, html, page, type Html } from '../layout.js'
import { problems } from '../subscriptions/routes.js'
import type { ConsoleSession } from '../sessions/service.js'
import { WEBHOOK_ID, actingOf, type ConsoleWebhookDeps } from './deps.js'
import { attemptLine } from './view.js'

const PAGE_SIZE = 25
const STATUSES: readonly NotificationStatus[] = ['PENDING', 'RETRY', 'DELIVERED', 'FAILED', 'SUSPENDED', 'HELD', 'CANCELLED']
const EVENT_TYPES = [...PRODUCTS.flatMap((p) => p.eventTypes.map((e) => e.eventName)), TEST_EVENT]
const DATE = /^\d{4}-\d{2}-\d{2}$/
/** A page's cursor: the last notification shown, `createdAt~id`. */
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)~([A-Za-z0-9_-]{1,64})$/

const options = (values: readonly string[], chosen: string, any = 'Any') => [html`<option value="">${any}</option>`, ...values.map((v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`)]

export async function consoleDeliveries(scope: App, deps: ConsoleWebhookDeps): Promise<void> {
  const { subscriptions, notifications, replays } = deps.webhooks

  /** The acting organization's subscriptions, for the filters' choices. */
  const choices = async (s: ConsoleSession) => (await subscriptions.list(s.actingId, {})).map((w) => ({ id: w.webhookId, label: w.name ? `${w.name} (${w.webhookId})` : w.webhookId }))
  const subscriptionOptions = (list: { id: string; label: string }[], chosen: string, any?: string) => [
    ...(any ? [html`<option value="">${any}</option>`] : []),
    ...list.map((w) => html`<option value="${w.id}"${w.id === chosen ? html` selected` : ''}>${w.label}</option>`),
  ]

  scope.get('/console/webhooks/deliveries', async (request, reply) => {
    const s = session(request)
    const q = { webhookId: queryParam(request, 'webhookId'), status: queryParam(request, 'status'), eventType: queryParam(request, 'eventType'), from: queryParam(request, 'from'), to: queryParam(request, 'to') }
    const refused: string[] = []
    if (q.status && !STATUSES.includes(q.status as NotificationStatus)) refused.push(`Status must be one of ${STATUSES.join(', ')}.`)
    if (q.eventType && !EVENT_TYPES.includes(q.eventType)) refused.push('Event type must be one of those listed.')
    for (const [name, value] of [['From', q.from], ['To', q.to]] as const) if (value && !(DATE.test(value) && !Number.isNaN(Date.parse(value)))) refused.push(`${name} must be a date, YYYY-MM-DD.`)
    const after = CURSOR.exec(queryParam(request, 'after'))
    // A subscription named must be the acting organization's: another's answers 404, as an unknown one.
    if (q.webhookId) await subscriptions.owned(actingOf(s), WEBHOOK_ID.test(q.webhookId) ? q.webhookId : '-')
    const rows = refused.length
      ? []
      : await notifications.listWithAttempts({
          organizationIds: [s.actingId],
          ...(q.webhookId ? { webhookId: q.webhookId } : {}),
          ...(q.status ? { status: q.status as NotificationStatus } : {}),
          ...(q.eventType ? { eventType: q.eventType } : {}),
          ...(q.from ? { from: `${q.from}T00:00:00.000Z` } : {}),
          ...(q.to ? { to: `${q.to}T00:00:00.000Z` } : {}),
          ...(after ? { after: { createdAt: after[1]!, id: after[2]! } } : {}),
          limit: PAGE_SIZE + 1,
        })
    const shown = rows.slice(0, PAGE_SIZE)
    const last = shown[shown.length - 1]
    const filters = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== ''))
    const older = rows.length > PAGE_SIZE && last ? `/console/webhooks/deliveries?${new URLSearchParams([...filters, ['after', `${last.createdAt}~${last.notificationId}`]])}` : undefined
    const replayed = /^\d{1,6}$/.test(queryParam(request, 'replayed')) ? Number(queryParam(request, 'replayed')) : undefined
    const list = await choices(s)
    return sendPage(
      reply,
      page(
        'Delivery log',
        html`<h1>Delivery log</h1>
<p><a href="/console/webhooks">Subscriptions</a> · <a href="/console/webhooks/replays">Replay a set of notifications</a></p>
${replayed === undefined ? '' : html`<p class="notice" role="status">${replayed} notifications are being sent again.</p>`}
<section><h2>Filter</h2><form method="get" action="/console/webhooks/deliveries">
<label for="webhookId">Subscription</label><select id="webhookId" name="webhookId">${subscriptionOptions(list, q.webhookId, 'Any')}</select>
<label for="status">Status</label><select id="status" name="status">${options(STATUSES, q.status)}</select>
<label for="eventType">Event type</label><select id="eventType" name="eventType">${options(EVENT_TYPES, q.eventType)}</select>
<label for="from">Created from (UTC date)</label><input type="date" id="from" name="from" value="${q.from}">
<label for="to">Created before (UTC date)</label><input type="date" id="to" name="to" value="${q.to}">
<button type="submit">Filter</button></form></section>
${refused.length ? html`<p class="error" role="alert">${refused.join(' ')}</p>` : ''}
${shown.length === 0
  ? html`<p class="muted">No notifications${after ? ' after this point' : ''}.</p>`
  : html`<div class="table"><table><caption class="muted">Notifications, newest first${after ? ' (older page)' : ''}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts (time · duration · HTTP status · answer)</th></tr></thead>
<tbody>${shown.map(
  (n) => html`<tr><td><a href="/console/webhooks/deliveries/${n.notificationId}">${n.createdAt}</a></td><td>${n.eventType}</td><td>${n.status}</td>
<td>${n.deliveries.length === 0 ? html`<span class="muted">none yet</span>` : html`<ol>${n.deliveries.map(attemptLine)}</ol>`}</td></tr>`,
)}</tbody></table></div>`}
<p>${after ? html`<a href="/console/webhooks/deliveries${filters.size ? `?${filters}` : ''}">Newest</a> ` : ''}${older ? html`<a href="${older}">Older notifications</a>` : ''}</p>`,
        chrome(s),
      ),
      refused.length ? 400 : 200,
    )
  })

  /** A notification of the acting organization; another's, or an unknown or malformed id, is not found alike. */
  async function notification(request: FastifyRequest<{ Params: { id: string } }>) {
    if (!WEBHOOK_ID.test(request.params.id)) throw notFound()
    const s = session(request)
    return notifications.detail(request.params.id, async (organizationId) => organizationId === s.actingId)
  }

  scope.get<{ Params: { id: string } }>('/console/webhooks/deliveries/:id', async (request, reply) => {
    const s = session(request)
    const n = await notification(request)
    const rows: [string, string][] = [
      ['Notification id', n.notificationId],
      ['Subscription', n.webhookId],
      ['Event', `${n.eventType} (${n.productId})`],
      ['Status', n.status],
      ['Created', n.createdAt],
      ...(n.nextAttemptAt ? ([['Next attempt', n.nextAttemptAt]] as [string, string][]) : []),
      ...(n.deliveredAt ? ([['Delivered', n.deliveredAt]] as [string, string][]) : []),
    ]
    return sendPage(
      reply,
      page(
        'Notification',
        html`<h1>Notification</h1><section><dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
<form method="post" action="/console/webhooks/deliveries/${n.notificationId}/replay">${csrfField(s.csrfToken)}<button type="submit">Replay this notification</button></form>
<p><a href="/console/webhooks/deliveries?webhookId=${n.webhookId}">The subscription's deliveries</a></p></section>
<section><h2>Attempts</h2>
${n.deliveries.length === 0
  ? html`<p class="muted">No attempt yet. ${n.status === 'PENDING' || n.status === 'RETRY' ? 'It is on its way: reload this page.' : ''}</p>`
  : html`<div class="table" tabindex="0" role="region" aria-label="Attempts (scrolls sideways)"><table><caption class="muted">${n.deliveries.length} attempts</caption>
<thead><tr><th scope="col">Started</th><th scope="col">Type</th><th scope="col">Duration</th><th scope="col">HTTP status</th><th scope="col">Result</th><th scope="col">The receiver's answer (first bytes)</th></tr></thead>
<tbody>${n.deliveries.map(
  (a) => html`<tr><td>${a.startedAt}</td><td>${a.requestType} ${a.retryNumber}</td><td>${a.durationMs} ms</td><td>${a.statusCode ?? '—'}</td><td>${a.result}${a.error ? html`<br><span class="muted">${a.error}</span>` : ''}</td><td>${a.responseExcerpt ? html`<code>${a.responseExcerpt}</code>` : '—'}</td></tr>`,
)}</tbody></table></div>`}</section>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>('/console/webhooks/deliveries/:id/replay', async (request, reply) => {
    const n = await notification(request)
    await replays.replayNotifications(n.webhookId, [n.notificationId])
    return reply.redirect(`/console/webhooks/deliveries/${n.notificationId}`, 303)
  })

  async function replayForm(s: ConsoleSession, v: Record<string, string>, refused?: ErrorDetail[]): Promise<Html> {
    return html`<h1>Replay a set of notifications</h1>
<p>Each notification selected is sent once more, now. Choose the subscription, the status, and the last hours or a window of at most 24 hours within the last 30 days.</p>
${refused ? problems(refused) : ''}
<form method="post" action="/console/webhooks/replays">${csrfField(s.csrfToken)}
<label for="webhookId">Subscription</label><select id="webhookId" name="webhookId" required>${subscriptionOptions(await choices(s), v['webhookId'] ?? '')}</select>
<label for="status">Status</label><select id="status" name="status">${['FAILED', 'RETRY', 'HELD'].map((x) => html`<option${x === v['status'] ? html` selected` : ''}>${x}</option>`)}</select>
<label for="eventType">Event type</label><select id="eventType" name="eventType">${options(EVENT_TYPES, v['eventType'] ?? '')}</select>
<label for="hoursBack">In the last hours (1 to 720; or leave empty and give the window below)</label><input id="hoursBack" name="hoursBack" value="${v['hoursBack'] ?? '24'}" inputmode="numeric">
<label for="startTime">Window start (ISO 8601, e.g. 2026-02-01T00:00:00Z)</label><input id="startTime" name="startTime" value="${v['startTime'] ?? ''}">
<label for="endTime">Window end (ISO 8601)</label><input id="endTime" name="endTime" value="${v['endTime'] ?? ''}">
<button type="submit">Replay them</button></form>`
  }

  scope.get('/console/webhooks/replays', async (request, reply) => {
    const s = session(request)
    return sendPage(reply, page('Replay', await replayForm(s, { webhookId: queryParam(request, 'webhookId') }), chrome(s)))
  })

  scope.post('/console/webhooks/replays', async (request, reply) => {
    const s = session(request)
    const v = Object.fromEntries(['webhookId', 'status', 'eventType', 'hoursBack', 'startTime', 'endTime'].map((k) => [k, field(request, k).trim()]))
    const sub = await subscriptions.owned(actingOf(s), WEBHOOK_ID.test(v['webhookId']!) ? v['webhookId']! : '-')
    const hours = v['hoursBack']!
    const long = Object.entries(v).filter(([, x]) => x.length > 40).map(([k]) => ({ field: k, reason: 'is too long' }))
    try {
      if (long.length > 0) throw invalid(long)
      const count = await replays.replay(sub.id, {
        byDeliveryStatus: {
          status: v['status']!,
          ...(v['eventType'] ? { eventType: v['eventType'] } : {}),
          ...(hours ? { hoursBack: hours } : { ...(v['startTime'] ? { startTime: v['startTime'] } : {}), ...(v['endTime'] ? { endTime: v['endTime'] } : {}) }),
        },
      })
      return reply.redirect(`/console/webhooks/deliveries?webhookId=${sub.id}&replayed=${count}`, 303)
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid') throw err
      return sendPage(reply, page('Replay', await replayForm(s, v, err.details), chrome(s)), 400)
    }
  })
}
