// The scheduler's sweep, run by every server process at the job runner's pace (and by the sandbox clock): it
// brings each active subscription's schedule in line with the subscription (a new one gets its first PENDING
// window; a changed one starts again from now; a deleted or inactive one loses its PENDING window), then queues
// every window that has closed by the organization's reporting time, oldest first — after downtime, each missed
// window once — and each one-time report whose window has closed. Every step is one transaction that starts with
// a compare-and-set, and an instance's key is a unique index, so processes sweeping at once never queue twice.
//
// One sweep does bounded work and never holds the event loop for more than one step (it yields between steps: on
// SQLite the statements are synchronous, so awaiting them alone would never let a request in). Organizations take
// turns, a slice of windows each, starting after the one that went first last time; an organization with
// `maxQueued` reports queued or generating gets no more until some finish, so one organization's backlog (a
// sandbox clock moved a week ahead) can neither fill the job queue in front of another's reports nor delay another's
// windows. What a sweep leaves is the next one's, or, for a moved sandbox clock, its catch-up job's (CATCH_UP_JOB):
// a slice at a time, giving its turn back to the queue between slices.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import type { Jobs } from '../../platform/jobs/service.js'
import { DeferJob, type JobHandler } from '../../platform/jobs/types.js'
import { nextTurn } from '../../platform/timers.js'
import type { ReportingClock } from '../clocks/service.js'
import type { NewInstance, ReportsService } from '../reports/service.js'
import { advanceSchedule, deleteSchedule, dueOrganizations, dueSchedules, insertSchedule, orphanedSchedules, reportsInFlight, resyncSchedule, unsyncedSubscriptions, type SubscriptionRow } from './repository.js'
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
  /**
   * Work is left that a later sweep will do: windows still due when the sweep's budget ran out or while an
   * organization had its most reports in flight, or more new, changed or due rows than one sweep reads.
   */
  more: boolean
}

export interface SweepOptions {
  /** Queues only this organization's windows and one-time reports (the sandbox clock and its catch-up). */
  organizationId?: string
  /** Windows the sweep queues at most (default WINDOWS_PER_SWEEP). */
  maxWindows?: number
}

export interface Scheduler {
  sweep(options?: SweepOptions): Promise<SweepSummary>
  /** Has a catch-up job queue what is due for the organization, a slice at a time; `key` names this catch-up once. */
  catchUp(organizationId: string, key: string): Promise<void>
  /** The catch-up job's handler. */
  readonly catchUpHandler: JobHandler<CatchUpJob>
}

export const CATCH_UP_JOB = 'report.catch-up'

export interface CatchUpJob {
  organizationId: string
}

export interface SchedulerDeps {
  db: Executor
  clock: Clock
  /** The catch-up jobs. */
  jobs: Pick<Jobs, 'enqueue'>
  /** The report instances the sweep makes and queues, through the reports service. */
  reports: Pick<ReportsService, 'insertInstance' | 'queuePending' | 'deletePending' | 'closedPending' | 'queueOneTime' | 'enqueueGeneration'>
  reportingClock: ReportingClock
  /** Reports of one organization queued or generating at once, at most (REPORT_MAX_QUEUED_PER_ORG). */
  maxQueued: number
}

/** Rows one query of a sweep reads, and windows one sweep queues: a sweep stays short. */
const BATCH = 500
export const WINDOWS_PER_SWEEP = 500
/** Windows one organization queues before the next organization's turn. */
const SLICE = 50
/** A catch-up job's slice; then it gives its turn back (at once, or after this long when it could queue nothing). */
const CATCH_UP_WINDOWS = 200
const CATCH_UP_WAIT_MS = 1_000

type DueSchedule = SubscriptionRow & { next_run_at: string }

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
  const { db, clock, jobs, reports, reportingClock } = deps
  /** The organization that went first in the last sweep: the next one starts after it. */
  let lastFirst = ''
  // The last generation job's due time this process gave (see dueAt in sweep).
  let lastDue = -Infinity

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

  /**
   * Queues the schedule's window that closes at its next run (read as `s.next_run_at`, moved on here): one
   * transaction. False when another process moved the schedule first (this sweep leaves it).
   */
  async function queueOne(s: DueSchedule, orgNow: number, dueAt: Date, queued: QueuedReport[]): Promise<boolean> {
    const schedule = scheduleOf(s)
    const key = { organizationId: s.organization_id, reportName: s.report_name, subscriptionUpdatedAt: s.updated_at }
    const run = Date.parse(s.next_run_at)
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
      if (instanceId) await reports.enqueueGeneration(tx, instanceId, queuedAt, dueAt)
      await reports.insertInstance(tx, instanceOf(s, { start: run, end: next }, 'PENDING', queuedAt))
      return instanceId ?? undefined
    })
    if (id === null) return false
    if (id) queued.push({ reportId: id, organizationId: s.organization_id, reportName: s.report_name, start: window.start, end: window.end })
    s.next_run_at = iso(next)
    return true
  }

  /**
   * Up to `limit` of one organization's due windows, the earliest run of its schedules first; schedules with
   * nothing more due (or moved by another process) leave `due`. Returns how many windows it queued.
   */
  async function queueSlice(due: DueSchedule[], orgNow: number, dueAt: () => Date, limit: number, queued: QueuedReport[]): Promise<number> {
    let done = 0
    while (done < limit) {
      for (let i = due.length - 1; i >= 0; i--) if (Date.parse(due[i]!.next_run_at) > orgNow) due.splice(i, 1)
      if (due.length === 0) break
      const earliest = due.reduce((a, b) => (b.next_run_at < a.next_run_at ? b : a))
      if (await queueOne(earliest, orgNow, dueAt(), queued)) done++
      else due.splice(due.indexOf(earliest), 1)
      await nextTurn()
    }
    return done
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
      await nextTurn()
    }
  }

  async function sweep(options: SweepOptions = {}): Promise<SweepSummary> {
    const real = clock.now().getTime()
    const offsets = await reportingClock.offsets()
    const orgNow = (org: string) => real + (offsets.get(org) ?? 0)
    const summary: SweepSummary = { synced: 0, dropped: 0, queued: [], more: false }

    const unsynced = await unsyncedSubscriptions(db, BATCH)
    for (const s of unsynced) {
      if (await sync(s, orgNow(s.organization_id))) summary.synced++
      await nextTurn()
    }
    const orphans = await orphanedSchedules(db, BATCH)
    for (const orphan of orphans) {
      const gone = await db.transaction().execute(async (tx) => (await deleteSchedule(tx, orphan)) && (await reports.deletePending(tx, orphan.organization_id, orphan.report_name), true))
      if (gone) summary.dropped++
      await nextTurn()
    }
    if (unsynced.length === BATCH || orphans.length === BATCH) summary.more = true

    // Organizations with windows due: by the server's time, and those whose clock is ahead by theirs.
    const only = options.organizationId
    const orgs = only !== undefined ? [only] : [...new Set([...(await dueOrganizations(db, iso(real))), ...offsets.keys()])].sort()
    const due = new Map<string, DueSchedule[]>()
    for (const org of orgs) {
      const rows = await dueSchedules(db, iso(orgNow(org)), BATCH, org)
      if (rows.length === BATCH) summary.more = true
      if (rows.length > 0) due.set(org, rows)
    }
    const inFlight = await reportsInFlight(db, [...due.keys()])
    const room = new Map([...due.keys()].map((org) => [org, Math.max(0, deps.maxQueued - (inFlight.get(org) ?? 0))]))

    // Turns: a slice per organization, round and round, starting after the one that went first last time.
    const order = [...due.keys()]
    const start = order.findIndex((org) => org > lastFirst)
    const turns = start <= 0 ? order : [...order.slice(start), ...order.slice(0, start)]
    if (turns.length > 0) lastFirst = turns[0]!
    let left = options.maxWindows ?? WINDOWS_PER_SWEEP
    // Generation jobs are due in the order their windows are queued (a millisecond apart, from just before the sweep):
    // the runner takes them first come, first served, so reports are generated in the turns they were queued in, and
    // one organization's backlog, however old its windows, never goes ahead of another's reports queued before it.
    // Two sweeps of this process at once (a timer's and a catch-up job's) number on from each other's last, while it
    // lies in this sweep's range: each from its own start, they gave equal due times, which the runner takes in any
    // order (PostgreSQL did, once in a test run). Sweeps of other processes are ordered by their clocks only.
    let position = real - left
    const dueAt = () => {
      const at = lastDue >= position && lastDue + 1 < real ? lastDue + 1 : position
      lastDue = at
      position = at + 1
      return new Date(at)
    }
    while (left > 0 && turns.length > 0) {
      for (const org of [...turns]) {
        const take = Math.min(SLICE, left, room.get(org)!)
        const schedules = due.get(org)!
        const queued = take > 0 ? await queueSlice(schedules, orgNow(org), dueAt, take, summary.queued) : 0
        left -= queued
        room.set(org, room.get(org)! - queued)
        // Done with this organization for this sweep: nothing more due, or no room left for it.
        if (schedules.length === 0 || room.get(org) === 0 || queued < take) turns.splice(turns.indexOf(org), 1)
        if (left === 0) break
      }
    }
    if ([...due].some(([org, schedules]) => schedules.some((s) => Date.parse(s.next_run_at) <= orgNow(org)))) summary.more = true

    // One-time reports whose window closed: by the server's time, then by each moved clock's.
    if (only === undefined) await queueOneTimeReports(real, orgNow, summary.queued)
    for (const org of only !== undefined ? [only] : [...offsets.keys()]) await queueOneTimeReports(orgNow(org), orgNow, summary.queued, org)
    return summary
  }

  return {
    sweep,
    async catchUp(organizationId, key) {
      await jobs.enqueue<CatchUpJob>(db, { kind: CATCH_UP_JOB, payload: { organizationId }, idempotencyKey: `${CATCH_UP_JOB}:${organizationId}:${key}` })
    },
    async catchUpHandler({ organizationId }) {
      const summary = await sweep({ organizationId, maxWindows: CATCH_UP_WINDOWS })
      // More is due: this job goes back to the queue behind what is due already (other organizations' catch-ups),
      // at once if this slice queued something, else (its organization has its most reports in flight) a little later.
      if (summary.more) throw new DeferJob(summary.queued.length > 0 ? 0 : CATCH_UP_WAIT_MS, 'more windows are due')
    },
  }
}
