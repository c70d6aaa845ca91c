// Report subscriptions of an organization: create-or-update (with 304 when nothing changed), read, list, delete.
// Every call names the acting organization and every statement is filtered by it, so another tenant's reportName
// answers exactly as an unknown one.
import type { Clock } from '../../platform/clock.js'
import { stampedMemory, type ChangeSignal } from '../../platform/db/changes.js'
import type { Executor } from '../../platform/db/database.js'
import { invalid, notFound } from '../../platform/errors.js'
import type { DefinitionsService } from '../report-definitions/service.js'
import * as repo from './repository.js'
import type { SubscriptionRow } from './repository.js'
import type { PredefinedBody, Subscription, SubscriptionBody } from './schemas.js'
import { checkPredefined, checkSubscription, type Checked, type NormalizedSubscription, type SubscriptionLimits } from './validate.js'

export type PutOutcome = 'created' | 'updated' | 'unchanged'

/** The change channel (platform/db/changes.ts: the table's name) of report subscriptions (PostgreSQL's trigger: migration 0030). */
export const SUBSCRIPTION_CHANGES = 'report_subscriptions'
/**
 * How long an organization's list is used without reading it again while no subscription changes anywhere (the
 * change signal keeps it current; this bound is only so that nothing is kept forever).
 */
export const LIST_MEMORY_MS = 60_000
/**
 * How many subscriptions, in all lists, a process remembers (each with its share of the list's rendered JSON): a
 * bound on memory, where a count of organizations would let a few large lists hold far more.
 */
const LIST_MEMORY_SUBSCRIPTIONS = 10_000

export interface SubscriptionsService {
  /**
   * The organization's subscriptions by name. The same array (do not change it) while no subscription changes
   * anywhere, given without a promise when it is at hand: clients poll the list, and its bytes are rendered once.
   */
  list(organizationId: string): readonly Subscription[] | Promise<readonly Subscription[]>
  /** Throws notFound() for a name the organization has no subscription under. */
  get(organizationId: string, reportName: string): Promise<Subscription>
  /** Throws invalid() with every problem; nothing is stored then. */
  put(organizationId: string, body: SubscriptionBody): Promise<PutOutcome>
  putPredefined(organizationId: string, body: PredefinedBody): Promise<PutOutcome>
  /** Throws notFound() for an unknown name. */
  remove(organizationId: string, reportName: string): Promise<void>
}

export interface SubscriptionsDeps {
  db: Executor
  changes: ChangeSignal
  clock: Clock
  definitions: DefinitionsService
  limits: SubscriptionLimits
}

/** The columns a PUT sets, compared to decide 304. */
function columns(organizationId: string, s: NormalizedSubscription): Omit<SubscriptionRow, 'created_at' | 'updated_at'> {
  return {
    organization_id: organizationId,
    report_name: s.reportName,
    subscription_type: s.subscriptionType,
    subscription_status: s.subscriptionStatus,
    report_definition_name: s.definition.name,
    report_mime_type: s.reportMimeType,
    report_frequency: s.reportFrequency,
    report_interval: s.reportInterval,
    timezone: s.timezone,
    start_time: s.startTime,
    start_day: s.startDay,
    report_fields: JSON.stringify(s.reportFields),
    report_filters: JSON.stringify(s.reportFilters),
    report_preferences: JSON.stringify(s.reportPreferences),
    group_name: s.groupName,
  }
}

/** Two formatters per zone, built once: constructing an Intl.DateTimeFormat costs more than the rest of a list call. */
const formatters = new Map<string, { day: Intl.DateTimeFormat; offset: Intl.DateTimeFormat }>()
function formattersOf(zone: string) {
  let found = formatters.get(zone)
  if (!found) {
    found = {
      day: new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }),
      offset: new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }),
    }
    // Bounded by the spec's list of zones, which validation enforces before anything is stored.
    formatters.set(zone, found)
  }
  return found
}

/** `HHMM` as a date-time: that time on the day the subscription was written, in its own zone, with the zone's offset. */
export function startDateTime(hhmm: string, zone: string, writtenAt: Date): string {
  // Every list call renders the same rows again: the answer for a row is kept until it is written again.
  const memoKey = `${hhmm}|${zone}|${writtenAt.getTime()}`
  const memo = startDateTimes.get(memoKey)
  if (memo !== undefined) return memo
  if (startDateTimes.size >= 10_000) startDateTimes.clear()
  const value = computeStartDateTime(hhmm, zone, writtenAt)
  startDateTimes.set(memoKey, value)
  return value
}
const startDateTimes = new Map<string, string>()

function computeStartDateTime(hhmm: string, zone: string, writtenAt: Date): string {
  const f = formattersOf(zone)
  const day = f.day.format(writtenAt)
  const name = f.offset.formatToParts(writtenAt).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT'
  const offset = name === 'GMT' ? '+00:00' : name.slice(3)
  return `${day}T${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00${offset}`
}

export function createSubscriptionsService(deps: SubscriptionsDeps): SubscriptionsService {
  const render = (row: SubscriptionRow): Subscription => ({
    organizationId: row.organization_id,
    reportDefinitionId: String(deps.definitions.find(row.report_definition_name)?.id ?? ''),
    reportDefinitionName: row.report_definition_name,
    reportMimeType: row.report_mime_type,
    reportFrequency: row.report_frequency,
    ...(row.report_interval === null ? {} : { reportInterval: row.report_interval }),
    reportName: row.report_name,
    timezone: row.timezone,
    startTime: startDateTime(row.start_time, row.timezone, new Date(row.updated_at)),
    ...(row.start_day === null ? {} : { startDay: Number(row.start_day) }),
    reportFields: JSON.parse(row.report_fields) as string[],
    reportFilters: JSON.parse(row.report_filters) as Record<string, string[]>,
    reportPreferences: JSON.parse(row.report_preferences) as Subscription['reportPreferences'],
  })

  const store = async (organizationId: string, checked: Checked): Promise<PutOutcome> => {
    if (!checked.ok) throw invalid(checked.details)
    const wanted = columns(organizationId, checked.value)
    return deps.db.transaction().execute(async (tx) => {
      const current = await repo.find(tx, organizationId, wanted.report_name)
      if (current) {
        const custom = (t: string) => t === 'CUSTOM'
        if (custom(current.subscription_type) !== custom(wanted.subscription_type)) {
          const where = custom(current.subscription_type) ? 'PUT /report-subscriptions' : 'PUT /predefined-report-subscriptions'
          throw invalid([{ field: 'reportName', reason: `names a ${current.subscription_type} subscription; change it with ${where}` }])
        }
        const same = (Object.keys(wanted) as (keyof typeof wanted)[]).every((k) => String(current[k]) === String(wanted[k]))
        if (same) return 'unchanged'
      } else if ((await repo.count(tx, organizationId)) >= deps.limits.maxSubscriptions) {
        // Each subscription is a report per run: the limit bounds the scheduling work one organization can ask for.
        throw invalid([{ field: 'reportName', reason: `the organization has ${deps.limits.maxSubscriptions} subscriptions, the most allowed; delete one to add another` }])
      }
      // updated_at is the version the report scheduler follows: every change moves it, even within one millisecond.
      const now = new Date(Math.max(deps.clock.now().getTime(), current ? Date.parse(current.updated_at) + 1 : 0)).toISOString()
      await repo.upsert(tx, { ...wanted, created_at: current?.created_at ?? now, updated_at: now })
      return current ? 'updated' : 'created'
    })
  }

  /**
   * Each organization's list as last read, with the change stamp taken before the read. Any change to the table
   * moves the stamp in every process sharing the database as it commits, inserts included, so the next call reads
   * the list again.
   */
  const remembered = stampedMemory<string, readonly Subscription[]>({
    changes: deps.changes,
    channels: [SUBSCRIPTION_CHANGES],
    nowMs: () => deps.clock.nowMs(),
    maxAgeMs: LIST_MEMORY_MS,
    capacity: LIST_MEMORY_SUBSCRIPTIONS,
    // An empty list still counts one, so that the organizations kept are bounded too.
    weigh: (list) => Math.max(list.length, 1),
  })

  return {
    list(organizationId) {
      const stamp = remembered.stamp()
      const hit = remembered.recall(organizationId, stamp)
      if (hit) return hit
      return repo.list(deps.db, organizationId).then((rows) => {
        const list = Object.freeze(rows.map(render))
        remembered.keep(organizationId, stamp, list)
        return list
      })
    },
    async get(organizationId, reportName) {
      const row = await repo.find(deps.db, organizationId, reportName)
      if (!row) throw notFound([{ field: 'reportName', reason: 'no subscription with this name' }])
      return render(row)
    },
    put: (organizationId, body) => store(organizationId, checkSubscription(body, deps.definitions, deps.limits)),
    putPredefined: (organizationId, body) => store(organizationId, checkPredefined(body, deps.definitions, deps.limits)),
    async remove(organizationId, reportName) {
      if (!(await repo.remove(deps.db, organizationId, reportName))) throw notFound([{ field: 'reportName', reason: 'no subscription with this name' }])
    },
  }
}
