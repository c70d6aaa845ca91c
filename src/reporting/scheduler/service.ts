// The scheduler's sweep, run by every server process at the job runner's pace (and by the sandbox clock): it
// brings each active subscription's schedule in line with the subscription (a new one gets its first PENDING
// window; a changed one starts again from now; a deleted or inactive one loses its PENDING window), then queues
// every window that has closed by the organization's reporting time, oldest first — after downtime, each missed
// window once — and each one-time report whose window has closed. Every step is one transaction that starts with
// a compare-and-set, and an instance's key is a unique index, so processes sweeping at once never queue twice.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import type { NewInstance, ReportsService } from '../reports/service.js'
import type { ReportingClock } from '../clocks/service.js'
import { advanceSchedule, deleteSchedule, dueSchedules, insertSchedule, orphanedSchedules, resyncSchedule, unsyncedSubscriptions, type SubscriptionRow } from './repository.js'
import { nextRun, windowEndingAt, type Schedule, type ScheduledFrequency, type Window } from './schedule.js'

export interface QueuedReport {
  reportId: string
  organizationId: string
  reportName: string
  start: number
  end: number
}

export interface SweepSummary {
  /** Schedules created or recomputed for new or changed subscriptions. */
  synced: number
  /** Schedules of deleted or inactive subscriptions removed. */
  dropped: number
  queued: QueuedReport[]
}

export interface Scheduler {
  /** One sweep; `organizationId` limits the queuing to one organization (the sandbox clock). */
  sweep(options?: { organizationId?: string }): Promise<SweepSummary>
}

export interface SchedulerDeps {
  db: Executor
  clock: Clock
  /** The report instances the sweep makes and queues, through the reports service. */
  reports: Pick<ReportsService, 'insertInstance' | 'queuePending' | 'deletePending' | 'closedPending' | 'queueOneTime' | 'enqueueGeneration'>
  reportingClock: ReportingClock
}

/** Rows one query of a sweep takes, and windows one schedule may queue in one sweep: a sweep stays short. */
const BATCH = 500
const WINDOWS_PER_SWEEP = 1000

export function scheduleOf(s: Pick<SubscriptionRow, 'report_frequency' | 'timezone' | 'start_time' | 'start_day' | 'report_interval'>): Schedule {
  return { frequency: s.report_frequency as ScheduledFrequency, timezone: s.timezone, startTime: s.start_time, startDay: s.start_day === null ? null : Number(s.start_day), interval: s.report_interval }
}

const iso = (ms: number) => new Date(ms).toISOString()

/** What an instance of a subscription reports, copied from it when the instance is made and again when queued. */
function contentOf(s: SubscriptionRow): Omit<NewInstance, 'id' | 'organization_id' | 'subscription_name' | 'request_hash' | 'window_start' | 'window_end' | 'status' | 'queued_at' | 'created_at' | 'updated_at'> {
  return {
    report_name: s.report_name,
    subscription_type: s.subscription_type,
    report_definition_name: s.report_definition_name,
    report_frequency: s.report_frequency,
    report_mime_type: s.report_mime_type,
    report_fields: s.report_fields,
    report_filters: s.report_filters,
    report_preferences: s.report_preferences,
    group_name: s.group_name,
    timezone: s.timezone,
  }
}

function instanceOf(s: SubscriptionRow, window: Window, status: 'PENDING' | 'QUEUED', now: string): NewInstance {
  return {
    ...contentOf(s),
    id: randomUUID(),
    organization_id: s.organization_id,
    subscription_name: s.report_name,
    request_hash: null,
    window_start: iso(window.start),
    window_end: iso(window.end),
    status,
    queued_at: status === 'QUEUED' ? now : null,
    created_at: now,
    updated_at: now,
  }
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { db, clock, reports, reportingClock } = deps

  /** A new or changed subscription: its next run from the organization's time now, and that window PENDING. */
  async function sync(s: SubscriptionRow & { synced_at: string | null }, orgNow: number): Promise<boolean> {
    const schedule = scheduleOf(s)
    const next = nextRun(schedule, orgNow)
    const now = iso(clock.now().getTime())
    return db.transaction().execute(async (tx) => {
      const key = { organizationId: s.organization_id, reportName: s.report_name }
      const moved =
        s.synced_at === null
          ? await insertSchedule(tx, { organization_id: s.organization_id, report_name: s.report_name, subscription_updated_at: s.updated_at, next_run_at: iso(next), updated_at: now })
          : await resyncSchedule(tx, key, s.synced_at, { subscriptionUpdatedAt: s.updated_at, nextRunAt: iso(next), now })
      if (!moved) return false
      await reports.deletePending(tx, s.organization_id, s.report_name)
      await reports.insertInstance(tx, instanceOf(s, windowEndingAt(schedule, next), 'PENDING', iso(orgNow)))
      return true
    })
  }

  /** Queues the schedule's closed windows one by one, oldest first; stops when another process got there first. */
  async function queueDue(s: SubscriptionRow & { next_run_at: string }, orgNow: number, offset: number, queued: QueuedReport[]): Promise<void> {
    const schedule = scheduleOf(s)
    const key = { organizationId: s.organization_id, reportName: s.report_name, subscriptionUpdatedAt: s.updated_at }
    let run = Date.parse(s.next_run_at)
    for (let n = 0; run <= orgNow && n < WINDOWS_PER_SWEEP; n++) {
      const window = windowEndingAt(schedule, run)
      const next = nextRun(schedule, run)
      const queuedAt = iso(orgNow)
      const id = await db.transaction().execute(async (tx) => {
        if (!(await advanceSchedule(tx, key, iso(run), iso(next), iso(clock.now().getTime())))) return null
        const windowKey = { organizationId: s.organization_id, subscriptionName: s.report_name, windowStart: iso(window.start), windowEnd: iso(window.end) }
        let instanceId = await reports.queuePending(tx, windowKey, contentOf(s), queuedAt)
        if (!instanceId) {
          const row = instanceOf(s, window, 'QUEUED', queuedAt)
          instanceId = (await reports.insertInstance(tx, row)) ? row.id : undefined
        }
        // Due at the run instant: the runner takes the oldest windows first.
        if (instanceId) await reports.enqueueGeneration(tx, instanceId, queuedAt, new Date(run - offset))
        await reports.insertInstance(tx, instanceOf(s, { start: run, end: next }, 'PENDING', queuedAt))
        return instanceId ?? undefined
      })
      if (id === null) return
      if (id) queued.push({ reportId: id, organizationId: s.organization_id, reportName: s.report_name, start: window.start, end: window.end })
      run = next
    }
  }

  async function queueOneTimeReports(now: number, orgNow: (org: string) => number, queued: QueuedReport[], organizationId?: string): Promise<void> {
    for (const row of await reports.closedPending(iso(now), organizationId)) {
      const queuedAt = iso(orgNow(row.organization_id))
      const done = await db.transaction().execute(async (tx) => {
        if (!(await reports.queueOneTime(tx, row.id, queuedAt))) return false
        await reports.enqueueGeneration(tx, row.id, queuedAt)
        return true
      })
      if (done) queued.push({ reportId: row.id, organizationId: row.organization_id, reportName: row.report_name, start: Date.parse(row.window_start), end: Date.parse(row.window_end) })
    }
  }

  return {
    async sweep(options = {}) {
      const real = clock.now().getTime()
      const offsets = await reportingClock.offsets()
      const orgNow = (org: string) => real + (offsets.get(org) ?? 0)
      const summary: SweepSummary = { synced: 0, dropped: 0, queued: [] }

      for (const s of await unsyncedSubscriptions(db, BATCH)) if (await sync(s, orgNow(s.organization_id))) summary.synced++
      for (const orphan of await orphanedSchedules(db, BATCH)) {
        const gone = await db.transaction().execute(async (tx) => (await deleteSchedule(tx, orphan)) && (await reports.deletePending(tx, orphan.organization_id, orphan.report_name), true))
        if (gone) summary.dropped++
      }

      // Everything due by the server's time; then, for organizations whose clock is ahead, what is due by theirs.
      const orgs = options.organizationId !== undefined ? [options.organizationId] : [undefined, ...[...offsets.keys()]]
      for (const org of orgs) {
        const now = org === undefined ? real : orgNow(org)
        for (const s of await dueSchedules(db, iso(now), BATCH, org)) await queueDue(s, orgNow(s.organization_id), offsets.get(s.organization_id) ?? 0, summary.queued)
        await queueOneTimeReports(now, orgNow, summary.queued, org)
      }
      return summary
    },
  }
}
