// /console/webhooks: the acting organization's webhook subscriptions (list, create, edit, activate or deactivate, a
// test send), through the webhooks module's subscription service, the one behind /notification-subscriptions/v2 (its
// rules, URL checks and tenancy: another organization's subscription is not found, as an unknown one). The delivery
// log and replays are in deliveries.ts, the signing keys in keys.ts, what they share in deps.ts.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { toWebhook } from '../../webhooks/notification-subscriptions/service.js'
import { chrome, field, sendPage, session } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { consoleDeliveries } from './deliveries.js'
import { WEBHOOK_ID, actingOf, type ConsoleWebhookDeps } from './deps.js'
import { consoleWebhookKeys } from './keys.js'
import { EMPTY_FORM, bodyOf, postedValues, subscriptionForm, tooLong, valuesOf, type FormValues } from './view.js'

export type { ConsoleWebhookDeps } from './deps.js'

const STATUS_NOTE: Record<string, string> = {
  ACTIVE: 'Notifications are delivered.',
  INACTIVE: 'Nothing is delivered; notifications are kept (HELD) for a replay.',
  SUSPENDED: 'Suspended after a notification failed every retry: activate it (or deliver a test) to resume.',
}

export async function consoleWebhooks(scope: App, deps: ConsoleWebhookDeps): Promise<void> {
  const { subscriptions, keys } = deps.webhooks

  function id(request: FastifyRequest<{ Params: { id: string } }>): string {
    if (!WEBHOOK_ID.test(request.params.id)) throw notFound()
    return request.params.id
  }

  async function formPage(reply: FastifyReply, s: ConsoleSession, title: string, action: string, v: FormValues, editing: boolean, refused?: ErrorDetail[]) {
    const list = await keys.list(s.actingId)
    return sendPage(reply, page(title, html`<h1>${title}</h1>${subscriptionForm(s.csrfToken, action, v, list, editing, refused)}`, chrome(s)), refused ? 400 : 200)
  }

  /** Saves through the service; a refused form comes back with the service's own reasons (400). */
  async function save(request: FastifyRequest, reply: FastifyReply, webhookId?: string) {
    const s = session(request)
    const v = postedValues(request)
    const title = webhookId ? 'Edit webhook subscription' : 'New webhook subscription'
    const action = webhookId ? `/console/webhooks/${webhookId}` : '/console/webhooks'
    const long = tooLong(v)
    if (long.length > 0) return formPage(reply, s, title, action, v, webhookId !== undefined, long)
    const body = bodyOf(v)
    try {
      if (webhookId) await subscriptions.update(actingOf(s), webhookId, { ...body, description: v.description || null, healthCheckUrl: v.healthCheckUrl || null })
      else await subscriptions.create(actingOf(s), body)
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid') throw err
      return formPage(reply, s, title, action, v, webhookId !== undefined, err.details)
    }
    return reply.redirect('/console/webhooks', 303)
  }

  scope.get('/console/webhooks', async (request, reply) => {
    const s = session(request)
    const list = await subscriptions.list(s.actingId, {})
    return sendPage(
      reply,
      page(
        'Webhooks',
        html`<h1>Webhook subscriptions</h1>
<p><a href="/console/webhooks/new">New subscription</a> · <a href="/console/webhooks/deliveries">Delivery log</a> · <a href="/console/webhooks/keys">Signing keys</a></p>
${list.length === 0
  ? html`<p class="muted">No webhook subscriptions yet.</p>`
  : html`<div class="table"><table><caption class="muted">${list.length} webhook subscriptions of ${s.actingId}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Receiver URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>${list.map(
  (w) => html`<tr><td><a href="/console/webhooks/${w.webhookId}">${w.name ?? w.webhookId}</a></td><td>${w.webhookUrl}</td><td>${w.products.flatMap((p) => p.eventTypes).join(', ')}</td><td>${w.status}</td><td>${w.createdOn}</td></tr>`,
)}</tbody></table></div>`}`,
        chrome(s),
      ),
    )
  })

  scope.get('/console/webhooks/new', async (request, reply) => formPage(reply, session(request), 'New webhook subscription', '/console/webhooks', EMPTY_FORM, false))

  scope.post('/console/webhooks', async (request, reply) => save(request, reply))

  scope.get<{ Params: { id: string } }>('/console/webhooks/:id', async (request, reply) => {
    const s = session(request)
    const sub = await subscriptions.owned(actingOf(s), id(request))
    const w = toWebhook(sub)
    const list = await keys.list(s.actingId)
    const next = w.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE'
    return sendPage(
      reply,
      page(
        'Webhook subscription',
        html`<h1>${w.name ?? 'Webhook subscription'}</h1>
<section><h2>Status: ${w.status}</h2><p>${STATUS_NOTE[w.status] ?? ''}${sub.statusReason ? html` <span class="muted">(${sub.statusReason})</span>` : ''}</p>
<form class="inline" method="post" action="/console/webhooks/${w.webhookId}/status">${csrfField(s.csrfToken)}<input type="hidden" name="status" value="${next}"><button type="submit">${next === 'ACTIVE' ? 'Activate' : 'Deactivate'}</button></form>
<form class="inline" method="post" action="/console/webhooks/${w.webhookId}/test">${csrfField(s.csrfToken)}<button type="submit" class="secondary">Send a test notification</button></form>
<p><a href="/console/webhooks/deliveries?webhookId=${w.webhookId}">Its deliveries</a></p>
<dl><dt>Subscription id</dt><dd>${w.webhookId}</dd><dt>Organization</dt><dd>${w.organizationId}</dd><dt>Created</dt><dd>${w.createdOn}</dd></dl></section>
<section><h2>Edit</h2>${subscriptionForm(s.csrfToken, `/console/webhooks/${w.webhookId}`, valuesOf(w), list, true)}</section>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>('/console/webhooks/:id', async (request, reply) => {
    const webhookId = id(request)
    // The subscription edited must be the acting organization's (404 as an unknown one) before the form is read.
    await subscriptions.owned(actingOf(session(request)), webhookId)
    return save(request, reply, webhookId)
  })

  scope.post<{ Params: { id: string } }>('/console/webhooks/:id/status', async (request, reply) => {
    const s = session(request)
    const webhookId = id(request)
    const status = field(request, 'status')
    await subscriptions.owned(actingOf(s), webhookId)
    if (status !== 'ACTIVE' && status !== 'INACTIVE') return sendPage(reply, page('Cannot do that', html`<h1>Cannot do that</h1><p class="error" role="alert">The status must be ACTIVE or INACTIVE. Go back and use the Activate or Deactivate button.</p>`, chrome(s)), 400)
    await subscriptions.setStatus(actingOf(s), webhookId, { status })
    return reply.redirect(`/console/webhooks/${webhookId}`, 303)
  })

  scope.post<{ Params: { id: string } }>('/console/webhooks/:id/test', async (request, reply) => {
    const notificationId = await subscriptions.queueTest(actingOf(session(request)), id(request), 'console')
    return reply.redirect(`/console/webhooks/deliveries/${notificationId}`, 303)
  })

  await consoleDeliveries(scope, deps)
  await consoleWebhookKeys(scope, deps)
}
