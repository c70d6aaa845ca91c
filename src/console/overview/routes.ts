// GET /console/overview: the acting organization's last 30 days, as the on-demand reports the API serves compute
// them: transactions a day per currency (payment batch summaries rolled up by day) and net funding a day per
// currency (net fundings of each day), each currency a chart with its totals beside it.
import type { Clock } from '../../platform/clock.js'
import type { App } from '../../platform/http/app.js'
import type { OrganizationService } from '../../organizations/service.js'
import type { OnDemandService } from '../../reporting/on-demand/service.js'
import { sumDecimals } from '../../reporting/transactions/decimal.js'
import { chrome, sendPage, session } from '../http.js'
import { html, page } from '../layout.js'
import { barChart, type Bar } from './chart.js'

export interface ConsoleOverviewDeps {
  clock: Clock
  onDemand: Pick<OnDemandService, 'paymentBatchSummaries' | 'netTotalsByDay'>
  organizations: Pick<OrganizationService, 'find'>
}

const DAY_MS = 86_400_000
const DAYS = 30

/** Per currency, the value of each day (0 where none), in day order. */
function byCurrency(days: readonly string[], entries: readonly { day: string; currency: string; value: string }[]): Map<string, Bar[]> {
  const out = new Map<string, Bar[]>()
  for (const currency of [...new Set(entries.map((e) => e.currency))].sort()) {
    out.set(
      currency,
      days.map((day) => ({ label: day, value: sumDecimals(entries.filter((e) => e.currency === currency && e.day === day).map((e) => e.value)) })),
    )
  }
  return out
}

export async function consoleOverview(scope: App, deps: ConsoleOverviewDeps): Promise<void> {
  scope.get('/console/overview', async (request, reply) => {
    const s = session(request)
    const now = deps.clock.now().getTime()
    const first = Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS
    const days = Array.from({ length: DAYS }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10))
    const window = { startTime: new Date(first).toISOString(), endTime: new Date(now).toISOString() }
    const acting = await deps.organizations.find(s.actingId)
    const breakdown = acting?.type === 'merchant' ? 'selected_merchant' : 'all_merchant'
    const batches = await deps.onDemand.paymentBatchSummaries(s.actingId, { ...window, rollUp: 'day', breakdown })
    const counts = batches.paymentBatchSummaries.map((b) => ({ day: b.startTime.slice(0, 10), currency: b.currencyCode, value: String(b.salesCount + b.creditCount) }))
    const funding = await deps.onDemand.netTotalsByDay(s.actingId, window)
    const section = (title: string, unit: string, data: Map<string, Bar[]>) =>
      html`<section><h2>${title}</h2>
${data.size === 0
  ? html`<p class="muted">None in the last ${DAYS} days.</p>`
  : [...data].map(([currency, bars]) => {
      const total = sumDecimals(bars.map((b) => b.value))
      return html`<div class="chart"><h3>${currency}</h3>
${barChart(`${title}, ${currency}, ${days[0]} to ${days[DAYS - 1]}`, bars, `${total} ${unit} in all`)}
<dl><dt>Total</dt><dd>${total} ${unit}</dd><dt>Days with any</dt><dd>${bars.filter((b) => !/^-?0(\.0*)?$/.test(b.value)).length}</dd></dl></div>`
    })}
</section>`
    return sendPage(
      reply,
      page(
        'Overview',
        html`<h1>Overview: the last ${DAYS} days</h1>
<p class="muted">${days[0]} to ${days[DAYS - 1]} (UTC), for ${s.actingId}.</p>
${section('Transactions a day', 'transactions', byCurrency(days, counts))}
${section('Net funding a day', 'net', byCurrency(days, funding))}`,
        chrome(s),
      ),
    )
  })
}
