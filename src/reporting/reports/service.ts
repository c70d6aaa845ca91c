// Report instances as the API, the scheduler and operators use them: one-time reports (201, or 304 for a request
// already made), search, details, the instances a download chooses from, the scheduler's steps, and the operator's
// list and retry. Every call names the
// acting organization and every statement is filtered by it, so another tenant's report answers as an unknown one.
import { randomUUID } from 'node:crypto'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { Clock } from '../../platform/clock.js'
import { stampedMemory, type ChangeSignal } from '../../platform/db/changes.js'
import type { Executor } from '../../platform/db/database.js'
import type { ReportStatus } from '../tables.js'
import { invalid, notFound } from '../../platform/errors.js'
import type { Jobs } from '../../platform/jobs/service.js'
import type { DefinitionsService } from '../report-definitions/service.js'
import type { ReportingClock } from '../clocks/service.js'
import { enqueueGeneration } from './queue.js'
import * as repo from './repository.js'
import type { InstanceRow, NewInstance, WindowKey } from './repository.js'
import type { OneTimeBody, ReportDetail, SearchQuery, SearchResult } from './schemas.js'
import { checkOneTime, parseDateTime } from './validate.js'
import { reportDetail, searchResult } from './view.js'

export type { InstanceRow, NewInstance, WindowKey }

export const REPORT_STATUSES: readonly ReportStatus[] = ['COMPLETED', 'PENDING', 'QUEUED', 'RUNNING', 'ERROR', 'NO_DATA']
const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED', 'ADHOC']
const MIME_TYPES = ['application/xml', 'text/csv', 'application/json']
/** Results one search answers at most (the latest windows are cut); narrow the range for more. */
export const SEARCH_LIMIT = 2000
/**
 * The change channel (platform/db/changes.ts: the table's name) of report instances (PostgreSQL's trigger: migration
 * 0032): any report's change, by this process or another, moves it.
 */
export const REPORT_CHANGES = 'report_instances'
/**
 * How long a report's details or a search's results are used without reading them again while no report changes
 * anywhere (the change signal keeps them current; this bound is only so that nothing is kept forever).
 */
export const REPORT_MEMORY_MS = 60_000
/** How many reports' details, and how many search results in all, a process remembers. */
const REPORT_MEMORY_SIZE = 10_000

export interface ReportsService {
  /** Throws invalid() with every problem. `created` is false for a request identical to one already made (304). */
  createOneTime(organizationId: string, body: OneTimeBody): Promise<{ created: boolean; reportId: string }>
  /**
   * Throws notFound() when nothing matches. The same array (do not change it) while no report changes anywhere,
   * given without a promise when it is at hand: clients poll, and its bytes are rendered once.
   */
  search(organizationId: string, query: SearchQuery, withOrganization?: boolean): readonly SearchResult[] | Promise<readonly SearchResult[]>
  /** As search: the same object while no report changes, without a promise when at hand. */
  get(organizationId: string, reportId: string): ReportDetail | Promise<ReportDetail>
  /** The organization's reports of one name whose window ends in [from, to) (a download finds its report among them). */
  instancesEnding(organizationId: string, reportName: string, from: string, to: string): Promise<InstanceRow[]>
  list(filter: { organizationId?: string; status?: ReportStatus; limit: number }): Promise<InstanceRow[]>
  /** Any organization's instance (operators). */
  instance(id: string): Promise<InstanceRow | undefined>
  /** Queues a finished report again (operators); returns the new job's id. */
  retry(id: string): Promise<string>
  /** Removes finished reports older than the retention, files first; returns how many went. */
  prune(retentionDays: number): Promise<number>
  /** Reports by status, for /metrics. */
  countByStatus(): Promise<Record<string, number>>

  // The scheduler's steps, each in the scheduler's own transaction `tx` (see scheduler/service.ts).
  /** Inserts an instance; false when its window was made already (another process was first). */
  insertInstance(tx: Executor, row: NewInstance): Promise<boolean>
  /** Moves the window's PENDING instance to QUEUED with the subscription's content now; its id, if there was one. */
  queuePending(tx: Executor, key: WindowKey, content: Partial<InstanceRow>, now: string): Promise<string | undefined>
  /** Removes a subscription's PENDING instance (it was changed or deleted). */
  deletePending(tx: Executor, organizationId: string, subscriptionName: string): Promise<number>
  /** One-time reports still PENDING whose window has closed by `now`. */
  closedPending(now: string, organizationId?: string): Promise<InstanceRow[]>
  /** PENDING → QUEUED for a one-time report; false when another process was first. */
  queueOneTime(tx: Executor, id: string, now: string): Promise<boolean>
  /** The report's generation job, in the transaction that queued it. */
  enqueueGeneration(tx: Executor, instanceId: string, queuedAt: string, runAt?: Date): Promise<string>
}

export interface ReportsDeps {
  db: Executor
  changes: ChangeSignal
  clock: Clock
  jobs: Pick<Jobs, 'enqueue'>
  definitions: DefinitionsService
  reportingClock: ReportingClock
  blobs: BlobStore
  limits: { maxWindowDays: number }
}

const DAY_MS = 86_400_000

export function createReportsService(deps: ReportsDeps): ReportsService {
  const { db, jobs, definitions, reportingClock } = deps
  const definitionId = (name: string) => definitions.find(name)?.id

  /**
   * Reports' details and searches' results as last read, each with the change stamp taken before its read: clients
   * poll a report until it completes, and the read was most of the call. Any change to a report, or a new one,
   * anywhere moves the stamp, so the next call reads again. Unknown reports and empty searches are not remembered.
   */
  const memory = { changes: deps.changes, channels: [REPORT_CHANGES], nowMs: () => deps.clock.nowMs(), maxAgeMs: REPORT_MEMORY_MS, capacity: REPORT_MEMORY_SIZE }
  const details = stampedMemory<string, ReportDetail>(memory)
  const searches = stampedMemory<string, readonly SearchResult[]>({ ...memory, weigh: (results) => results.length })

  return {
    async createOneTime(organizationId, body) {
      const checked = checkOneTime(organizationId, body, definitions, deps.limits)
      if (!checked.ok) throw invalid(checked.details)
      const r = checked.value
      const existing = await repo.findByRequest(db, organizationId, r.hash)
      if (existing) return { created: false, reportId: existing.id }
      const now = (await reportingClock.now(organizationId)).toISOString()
      // A window that has closed is queued at once; one still open waits, PENDING, for the scheduler.
      const closed = r.end <= Date.parse(now)
      const id = randomUUID()
      const created = await db.transaction().execute(async (tx) => {
        const inserted = await repo.insertInstance(tx, {
          id,
          organization_id: organizationId,
          report_name: r.reportName,
          subscription_name: null,
          request_hash: r.hash,
          subscription_type: 'CUSTOM',
          report_definition_name: r.definition.name,
          report_frequency: 'ADHOC',
          report_mime_type: r.reportMimeType,
          report_fields: JSON.stringify(r.reportFields),
          report_filters: JSON.stringify(r.reportFilters),
          report_preferences: JSON.stringify(r.reportPreferences),
          group_name: r.groupName,
          timezone: r.timezone,
          window_start: new Date(r.start).toISOString(),
          window_end: new Date(r.end).toISOString(),
          status: closed ? 'QUEUED' : 'PENDING',
          queued_at: closed ? now : null,
          created_at: now,
          updated_at: now,
        })
        if (inserted && closed) await enqueueGeneration(tx, jobs, id, now)
        return inserted
      })
      if (created) return { created: true, reportId: id }
      // The same request made at the same moment by another call: that one was first.
      return { created: false, reportId: (await repo.findByRequest(db, organizationId, r.hash))?.id ?? id }
    },

    search(organizationId, query, withOrganization = false) {
      const problems: { field: string; reason: string }[] = []
      const from = parseDateTime(query.startTime, 'GMT')
      const to = parseDateTime(query.endTime, 'GMT')
      if (from === undefined) problems.push({ field: 'startTime', reason: 'must be an ISO 8601 date-time, e.g. 2026-03-01T00:00:00.000Z' })
      if (to === undefined) problems.push({ field: 'endTime', reason: 'must be an ISO 8601 date-time, e.g. 2026-03-31T23:59:59.000Z' })
      if (from !== undefined && to !== undefined && to < from) problems.push({ field: 'endTime', reason: 'must not be earlier than startTime' })
      if (query.timeQueryType !== 'reportTimeFrame' && query.timeQueryType !== 'executedTime') problems.push({ field: 'timeQueryType', reason: 'must be reportTimeFrame or executedTime' })
      if (query.reportMimeType !== undefined && !MIME_TYPES.includes(query.reportMimeType)) problems.push({ field: 'reportMimeType', reason: `must be one of ${MIME_TYPES.join(', ')}` })
      const frequency = query.reportFrequency?.toUpperCase()
      if (frequency !== undefined && !FREQUENCIES.includes(frequency)) problems.push({ field: 'reportFrequency', reason: `must be one of ${FREQUENCIES.join(', ')}` })
      const status = query.reportStatus?.toUpperCase() as ReportStatus | undefined
      if (status !== undefined && !REPORT_STATUSES.includes(status)) problems.push({ field: 'reportStatus', reason: `must be one of ${REPORT_STATUSES.join(', ')}` })
      if (problems.length) throw invalid(problems)
      const definition = query.reportDefinitionId === undefined ? undefined : definitions.list({}).find((d) => String(d.reportDefinitionId) === String(Number(query.reportDefinitionId)))
      if (query.reportDefinitionId !== undefined && !definition) throw notFound([{ field: 'reportDefinitionId', reason: 'no reports found' }])
      const criteria: repo.SearchCriteria = {
        organizationId,
        by: query.timeQueryType as 'reportTimeFrame' | 'executedTime',
        from: new Date(from!).toISOString(),
        to: new Date(to!).toISOString(),
        reportMimeType: query.reportMimeType,
        reportFrequency: frequency,
        reportName: query.reportName,
        reportDefinitionName: definition?.reportDefintionName,
        status,
        limit: SEARCH_LIMIT,
      }
      const key = JSON.stringify([criteria, withOrganization])
      const stamp = searches.stamp()
      const remembered = searches.recall(key, stamp)
      if (remembered) return remembered
      return repo.searchInstances(db, criteria).then((rows) => {
        if (rows.length === 0) throw notFound([{ reason: 'no reports found' }])
        const results = Object.freeze(rows.map((row) => Object.freeze(searchResult(row, definitionId(row.report_definition_name), withOrganization))))
        searches.keep(key, stamp, results)
        return results
      })
    },

    get(organizationId, reportId) {
      const id = reportId.toLowerCase()
      const key = `${organizationId}\u0000${id}`
      const stamp = details.stamp()
      const remembered = details.recall(key, stamp)
      if (remembered) return remembered
      return repo.findInstance(db, organizationId, id).then((row) => {
        if (!row) throw notFound([{ field: 'reportId', reason: 'no report with this id' }])
        const detail = Object.freeze(reportDetail(row, definitionId(row.report_definition_name)))
        details.keep(key, stamp, detail)
        return detail
      })
    },

    instancesEnding: (organizationId, reportName, from, to) => repo.instancesEnding(db, organizationId, reportName, from, to),
    list: (filter) => repo.listInstances(db, filter),
    instance: (id) => repo.getInstance(db, id),

    async retry(id) {
      const row = await repo.getInstance(db, id)
      if (!row) throw notFound([{ field: 'reportId', reason: 'no report with this id' }])
      const now = (await reportingClock.now(row.organization_id)).toISOString()
      return db.transaction().execute(async (tx) => {
        if (!(await repo.requeueFinished(tx, id, now))) throw invalid([{ field: 'reportId', reason: `the report is ${row.status}; only a finished report (COMPLETED, NO_DATA, ERROR) is queued again` }])
        return enqueueGeneration(tx, jobs, id, now)
      })
    },

    async prune(retentionDays) {
      const before = new Date(deps.clock.now().getTime() - retentionDays * DAY_MS).toISOString()
      let total = 0
      for (;;) {
        const expired = await repo.expiredInstances(db, before, 500)
        for (const row of expired) if (row.blob_key) await deps.blobs.delete(row.blob_key)
        total += await repo.deleteInstances(db, expired.map((r) => r.id))
        if (expired.length < 500) return total
      }
    },

    countByStatus: () => repo.countByStatus(db),
    insertInstance: (tx, row) => repo.insertInstance(tx, row),
    queuePending: (tx, key, content, now) => repo.queuePending(tx, key, content, now),
    deletePending: (tx, organizationId, subscriptionName) => repo.deletePending(tx, organizationId, subscriptionName),
    closedPending: (now, organizationId) => repo.closedPending(db, now, organizationId),
    queueOneTime: (tx, id, now) => repo.queueOneTime(tx, id, now),
    enqueueGeneration: (tx, instanceId, queuedAt, runAt) => enqueueGeneration(tx, jobs, instanceId, queuedAt, runAt),
  }
}
