// /console/sandbox (registered in sandbox mode only): the organization's reporting clock, read, moved forward by a
// chosen duration and put back on real time through the SandboxClock the API's /sandbox/v1/clock uses, and an event
// of any type fired with sample data through the webhooks module's sandbox trigger (the API's /sandbox/v1/events),
// and the organization's reporting data reset to the seeded state (reporting's SandboxReset) once its id is typed
// on a second form.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, invalid } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import type { SandboxClock } from '../../reporting/sandbox-clock/service.js'
import type { SandboxReset } from '../../reporting/sandbox-reset/service.js'
import { PRODUCTS } from '../../webhooks/catalog.js'
import type { SandboxTrigger } from '../../webhooks/events/sandbox.js'
import { chrome, field, queryParam, sendPage, session } from '../http.js'
import { csrfField, html, page } from '../layout.js'

export interface ConsoleSandboxDeps {
  sandboxClock: Pick<SandboxClock, 'read' | 'advance' | 'realTime'>
  sandboxTrigger: SandboxTrigger
  sandboxReset: SandboxReset
}

const UNITS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const
type Unit = keyof typeof UNITS
/** The longest single move: a year, as far as a batch summary reaches. */
const MAX_MOVE_MS = 366 * UNITS.days
const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const EVENT_TYPES = PRODUCTS.flatMap((p) => p.eventTypes.map((e) => ({ ...e, product: p.productName })))

/** How far ahead of real time, in words. */
function ahead(seconds: number): string {
  if (seconds === 0) return 'on real time'
  const days = Math.floor(seconds / 86_400)
  const hours = Math.floor((seconds % 86_400) / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  const parts = [days && `${days} d`, hours && `${hours} h`, minutes && `${minutes} min`].filter(Boolean)
  return `${parts.length ? parts.join(' ') : `${seconds} s`} ahead of real time`
}

/** The move asked for, in ms; invalid() naming the limit when it is not a whole number of units up to a year. */
function duration(amount: string, unit: string): number {
  if (!(unit in UNITS)) throw invalid([{ field: 'unit', reason: 'must be minutes, hours or days' }])
  const n = /^[0-9]{1,6}$/.test(amount) ? Number(amount) : NaN
  const ms = n * UNITS[unit as Unit]
  if (!(n >= 1 && ms <= MAX_MOVE_MS)) throw invalid([{ field: 'amount', reason: 'must be a whole number of minutes, hours or days, from 1 up to 366 days' }])
  return ms
}

export async function consoleSandbox(scope: App, deps: ConsoleSandboxDeps): Promise<void> {
  async function show(request: FastifyRequest, reply: FastifyReply, refused?: string, form = { amount: '1', unit: 'days' }) {
    const s = session(request)
    const clock = await deps.sandboxClock.read(s.actingId)
    const moved = queryParam(request, 'queued')
    const event = queryParam(request, 'event')
    const heard = queryParam(request, 'notifications')
    const notice = /^[0-9]{1,6}$/.test(moved)
      ? html`<p class="notice" role="status">The clock moved: ${moved} reports came due${queryParam(request, 'catchingUp') === '1' ? ' so far; the rest are queued in the background' : ''}. See them under <a href="/console/reports">Reports</a>.</p>`
      : queryParam(request, 'realTime') === '1'
        ? html`<p class="notice" role="status">The clock is back on real time.</p>`
        : /^[0-9]{1,9}$/.test(queryParam(request, 'resetReports'))
          ? html`<p class="notice" role="status">Your sandbox data is back to the seeded state: ${queryParam(request, 'resetReports')} reports and ${queryParam(request, 'resetSubscriptions').replace(/[^0-9]/g, '') || '0'} subscriptions removed, the clock on real time.</p>`
          : EVENT_ID.test(event) && /^[0-9]{1,6}$/.test(heard)
          ? html`<p class="notice" role="status">Event ${event} published; ${heard} webhook subscriptions hear it.</p>`
          : ''
    return sendPage(
      reply,
      page(
        'Sandbox',
        html`<h1>Sandbox</h1>
${notice}
${refused ? html`<p class="error" role="alert" id="form-error">${refused}</p>` : ''}
<section><h2>Reporting clock</h2>
<dl><dt>Reporting time of ${clock.organizationId}</dt><dd id="clock-now">${clock.now}</dd><dt>Offset</dt><dd id="clock-offset">${ahead(clock.offsetSeconds)} (${clock.offsetSeconds} s)</dd></dl>
<p class="muted">Moving it forward makes every report due by then come due, in order, as the scheduler would; the API's <code>GET /sandbox/v1/clock</code> reads the same time.</p>
<form method="post" action="/console/sandbox/clock">${csrfField(s.csrfToken)}
<label for="amount">Advance by</label><input id="amount" name="amount" value="${form.amount}" inputmode="numeric" maxlength="6" required>
<label for="unit">Unit</label><select id="unit" name="unit">${Object.keys(UNITS).map((u) => html`<option${u === form.unit ? html` selected` : ''}>${u}</option>`)}</select>
<button type="submit">Advance the clock</button></form>
${clock.offsetSeconds === 0 ? '' : html`<form method="post" action="/console/sandbox/clock/real-time">${csrfField(s.csrfToken)}<button type="submit" class="secondary">Back to real time</button></form>`}
</section>
<section><h2>Trigger an event</h2>
<p class="muted">Fires the event with sample data for ${s.actingId}, as <code>POST /sandbox/v1/events</code> does; every webhook subscription that hears it gets a notification.</p>
<form method="post" action="/console/sandbox/events">${csrfField(s.csrfToken)}
<label for="eventType">Event type</label><select id="eventType" name="eventType">${EVENT_TYPES.map((e) => html`<option value="${e.eventName}">${e.product}: ${e.displayName} (${e.eventName})</option>`)}</select>
<button type="submit">Trigger the event</button></form></section>
<section><h2>Reset your sandbox data</h2>
<p class="muted">Removes ${s.actingId}'s report subscriptions, reports and their files, and puts its clock back on real time; the sandbox's generated transactions stay. Nothing of any other organization changes.</p>
<form method="get" action="/console/sandbox/reset"><button type="submit" class="secondary">Reset…</button></form></section>`,
        chrome(s),
      ),
      refused ? 400 : 200,
    )
  }

  /** A refusal of the service, as one line on the page. */
  const reasonOf = (err: DomainError) => `${err.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ')}.`

  scope.get('/console/sandbox', (request, reply) => show(request, reply))

  scope.post('/console/sandbox/clock', async (request, reply) => {
    const s = session(request)
    const form = { amount: field(request, 'amount').slice(0, 6), unit: field(request, 'unit') }
    try {
      const by = duration(form.amount, form.unit)
      const now = Date.parse((await deps.sandboxClock.read(s.actingId)).now)
      const moved = await deps.sandboxClock.advance(s.actingId, new Date(now + by).toISOString())
      return reply.redirect(`/console/sandbox?queued=${moved.queued?.length ?? 0}${moved.complete ? '' : '&catchingUp=1'}`, 303)
    } catch (err) {
      if (!(err instanceof DomainError) || (err.kind !== 'invalid' && err.kind !== 'conflict')) throw err
      return show(request, reply, reasonOf(err), form)
    }
  })

  scope.post('/console/sandbox/clock/real-time', async (request, reply) => {
    await deps.sandboxClock.realTime(session(request).actingId)
    return reply.redirect('/console/sandbox?realTime=1', 303)
  })

  /** The second form: the organization's id typed to confirm, as GitHub asks before deleting a repository. */
  function confirmPage(request: FastifyRequest, reply: FastifyReply, refused?: string) {
    const s = session(request)
    return sendPage(
      reply,
      page(
        'Reset sandbox data',
        html`<h1>Reset ${s.actingId}'s sandbox data</h1>
<p>This removes every report subscription and report of <strong>${s.actingId}</strong>, with their files, and puts its reporting clock back on real time. It cannot be undone.</p>
${refused ? html`<p class="error" role="alert" id="form-error">${refused}</p>` : ''}
<form method="post" action="/console/sandbox/reset">${csrfField(s.csrfToken)}
<label for="confirm">Type the organization id, ${s.actingId}, to confirm</label>
<input id="confirm" name="confirm" required maxlength="64" autocomplete="off" autocapitalize="none" spellcheck="false"${refused ? html` aria-describedby="form-error"` : ''}>
<button type="submit">Reset the sandbox data</button></form>
<p><a href="/console/sandbox">Back to the sandbox page, resetting nothing</a></p>`,
        chrome(s),
      ),
      refused ? 400 : 200,
    )
  }

  scope.get('/console/sandbox/reset', (request, reply) => confirmPage(request, reply))

  scope.post('/console/sandbox/reset', async (request, reply) => {
    const s = session(request)
    if (field(request, 'confirm') !== s.actingId) return confirmPage(request, reply, `Type the organization id exactly, ${s.actingId}, to confirm; nothing was reset.`)
    const done = await deps.sandboxReset.reset(s.actingId)
    return reply.redirect(`/console/sandbox?resetReports=${done.reports}&resetSubscriptions=${done.subscriptions}`, 303)
  })

  scope.post('/console/sandbox/events', async (request, reply) => {
    const s = session(request)
    try {
      const published = await deps.sandboxTrigger.trigger(s.actingId, field(request, 'eventType'))
      return reply.redirect(`/console/sandbox?event=${published.eventId}&notifications=${published.notificationIds.length}`, 303)
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid') throw err
      return show(request, reply, reasonOf(err))
    }
  })
}
