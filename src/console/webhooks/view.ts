// What the webhook pages render beside their routes: the subscription form (products and event types from the
// catalog, the retry policy, the signing key), its reading back into the service's body, and an attempt's line.
import type { FastifyRequest } from 'fastify'
import type { ErrorDetail } from '../../platform/errors.js'
import { PRODUCTS } from '../../webhooks/catalog.js'
import type { KeySummary } from '../../webhooks/keys/service.js'
import type { CreateWebhook, Webhook } from '../../webhooks/notification-subscriptions/schemas.js'
import type { Attempt } from '../../webhooks/notifications/schemas.js'
import { field, fields } from '../http.js'
import { csrfField, html, type Html } from '../layout.js'
import { problems } from '../subscriptions/routes.js'

/** The members' limits the API's schema sets (the console calls the service directly, so it checks them here). */
const LIMITS: [keyof FormValues, string, number][] = [
  ['name', 'Name', 128],
  ['description', 'Description', 1024],
  ['webhookUrl', 'Receiver URL', 2048],
  ['healthCheckUrl', 'Health check URL', 2048],
  ['firstRetry', 'First retry', 16],
  ['interval', 'Interval', 16],
  ['numberOfRetries', 'Number of retries', 16],
]

/** The form's values as text, as posted or as the subscription has them. */
export interface FormValues {
  name: string
  description: string
  webhookUrl: string
  healthCheckUrl: string
  /** `productId|eventName` of each event type chosen. */
  events: string[]
  notificationScope: string
  algorithm: string
  firstRetry: string
  interval: string
  numberOfRetries: string
  deactivateFlag: boolean
  keyId: string
}

export const EMPTY_FORM: FormValues = {
  name: '',
  description: '',
  webhookUrl: '',
  healthCheckUrl: '',
  events: [],
  notificationScope: 'DESCENDANTS',
  algorithm: 'ARITHMETIC',
  firstRetry: '',
  interval: '',
  numberOfRetries: '',
  deactivateFlag: false,
  keyId: '',
}

export function valuesOf(w: Webhook): FormValues {
  return {
    name: w.name ?? '',
    description: w.description ?? '',
    webhookUrl: w.webhookUrl,
    healthCheckUrl: w.healthCheckUrl ?? '',
    events: w.products.flatMap((p) => p.eventTypes.map((e) => `${p.productId}|${e}`)),
    notificationScope: w.notificationScope,
    algorithm: w.retryPolicy.algorithm,
    firstRetry: String(w.retryPolicy.firstRetry),
    interval: String(w.retryPolicy.interval),
    numberOfRetries: String(w.retryPolicy.numberOfRetries),
    deactivateFlag: w.retryPolicy.deactivateFlag === 'true',
    keyId: w.securityPolicy.config?.additionalConfig?.keyId ?? '',
  }
}

export function postedValues(request: FastifyRequest): FormValues {
  return {
    name: field(request, 'name').trim(),
    description: field(request, 'description'),
    webhookUrl: field(request, 'webhookUrl').trim(),
    healthCheckUrl: field(request, 'healthCheckUrl').trim(),
    events: fields(request, 'events'),
    notificationScope: field(request, 'notificationScope'),
    algorithm: field(request, 'algorithm'),
    firstRetry: field(request, 'firstRetry').trim(),
    interval: field(request, 'interval').trim(),
    numberOfRetries: field(request, 'numberOfRetries').trim(),
    deactivateFlag: field(request, 'deactivateFlag') === 'true',
    keyId: field(request, 'keyId'),
  }
}

/** What the API's schema would refuse before the service sees it: over-long members. */
export function tooLong(v: FormValues): ErrorDetail[] {
  return LIMITS.filter(([k, , max]) => String(v[k]).length > max).map(([k, label, max]) => ({ field: k, reason: `${label} must be at most ${max} characters` }))
}

/** The service's body: products grouped from the chosen event types; an empty optional member left out. */
export function bodyOf(v: FormValues): CreateWebhook {
  const products = new Map<string, string[]>()
  for (const choice of v.events) {
    const [productId = '', eventName = ''] = choice.split('|')
    products.set(productId, [...(products.get(productId) ?? []), eventName])
  }
  const retryPolicy = {
    ...(v.algorithm ? { algorithm: v.algorithm } : {}),
    ...(v.firstRetry ? { firstRetry: v.firstRetry } : {}),
    ...(v.interval ? { interval: v.interval } : {}),
    ...(v.numberOfRetries ? { numberOfRetries: v.numberOfRetries } : {}),
    deactivateFlag: v.deactivateFlag ? 'true' : 'false',
  }
  return {
    ...(v.name ? { name: v.name } : {}),
    ...(v.description ? { description: v.description } : {}),
    products: [...products].map(([productId, eventTypes]) => ({ productId, eventTypes })),
    webhookUrl: v.webhookUrl,
    ...(v.healthCheckUrl ? { healthCheckUrl: v.healthCheckUrl } : {}),
    retryPolicy,
    notificationScope: v.notificationScope || 'DESCENDANTS',
    securityPolicy: v.keyId ? { securityType: 'key', config: { additionalConfig: { keyId: v.keyId } } } : { securityType: 'key' },
  }
}

const selected = (on: boolean) => (on ? html` selected` : '')
const checked = (on: boolean) => (on ? html` checked` : '')

/** The create or edit form; `action` is where it posts. */
export function subscriptionForm(csrf: string, action: string, v: FormValues, keys: readonly KeySummary[], editing: boolean, refused?: ErrorDetail[]): Html {
  const usable = keys.filter((k) => k.status === 'ACTIVE')
  return html`${refused ? problems(refused) : ''}
${usable.length === 0 ? html`<p class="notice" role="note">Your organization has no signing key yet: <a href="/console/webhooks/keys">create one</a> first; every notification is signed with it.</p>` : ''}
<form method="post" action="${action}">${csrfField(csrf)}
<label for="name">Name</label>
<input id="name" name="name" value="${v.name}" maxlength="128">
<label for="description">Description</label>
<input id="description" name="description" value="${v.description}" maxlength="1024">
<label for="webhookUrl">Receiver URL (where notifications are POSTed)</label>
<input id="webhookUrl" name="webhookUrl" type="url" value="${v.webhookUrl}" required maxlength="2048" inputmode="url" spellcheck="false">
<label for="healthCheckUrl">Health check URL (optional: tried while the subscription is suspended)</label>
<input id="healthCheckUrl" name="healthCheckUrl" type="url" value="${v.healthCheckUrl}" maxlength="2048" inputmode="url" spellcheck="false">
${PRODUCTS.map(
  (p, i) => html`<fieldset><legend>${p.productName} (${p.productId})</legend>
${p.eventTypes.map((e, j) => {
  const value = `${p.productId}|${e.eventName}`
  return html`<div><input type="checkbox" id="ev-${i}-${j}" name="events" value="${value}"${checked(v.events.includes(value))}> <label class="check" for="ev-${i}-${j}">${e.displayName} <span class="muted">(${e.eventName})</span></label></div>`
})}
</fieldset>`,
)}
<label for="notificationScope">Scope</label>
<select id="notificationScope" name="notificationScope">
<option value="DESCENDANTS"${selected(v.notificationScope !== 'SELF')}>This organization and those below it</option>
<option value="SELF"${selected(v.notificationScope === 'SELF')}>This organization only</option>
</select>
<fieldset><legend>Retries</legend>
<label for="algorithm">Algorithm</label>
<select id="algorithm" name="algorithm"><option${selected(v.algorithm !== 'GEOMETRIC')}>ARITHMETIC</option><option${selected(v.algorithm === 'GEOMETRIC')}>GEOMETRIC</option></select>
<label for="firstRetry">First retry after (minutes; empty for the default)</label>
<input id="firstRetry" name="firstRetry" value="${v.firstRetry}" inputmode="decimal">
<label for="interval">Interval (minutes added each time; GEOMETRIC: the factor)</label>
<input id="interval" name="interval" value="${v.interval}" inputmode="decimal">
<label for="numberOfRetries">Number of retries</label>
<input id="numberOfRetries" name="numberOfRetries" value="${v.numberOfRetries}" inputmode="numeric">
<div><input type="checkbox" id="deactivateFlag" name="deactivateFlag" value="true"${checked(v.deactivateFlag)}> <label class="check" for="deactivateFlag">Suspend the subscription when a notification fails every retry</label></div>
</fieldset>
<label for="keyId">Signing key</label>
<select id="keyId" name="keyId"><option value="">The newest active key (rotates with new keys)</option>
${usable.map((k) => html`<option value="${k.keyId}"${selected(k.keyId === v.keyId)}>${k.keyId}${k.clientReferenceCode ? ` (${k.clientReferenceCode})` : ''}</option>`)}
</select>
<button type="submit">${editing ? 'Save' : 'Create the subscription'}</button>
</form>`
}

/** One attempt as the log shows it: when, how long, the HTTP status (or why none) and the start of the answer. */
export function attemptLine(a: Attempt): Html {
  return html`<li>${a.startedAt} · ${a.durationMs} ms · ${a.statusCode === undefined ? a.result : html`HTTP ${a.statusCode}`}${a.responseExcerpt ? html` · <q>${excerpt(a.responseExcerpt)}</q>` : ''}</li>`
}

/** The first characters of an answer, on one line. */
export const excerpt = (text: string, max = 80) => {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max)}…` : line
}
