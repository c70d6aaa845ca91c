// Report instances as the API and operators use them: one-time reports (201, or 304 for a request already made),
// search, details, finding the report a download names, and the operator's list and retry. Every call names the
// acting organization and every statement is filtered by it, so another tenant's report answers as an unknown one.
import { randomUUID } from 'node:crypto'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import type { ReportStatus } from '../../platform/db/schema.js'
import { invalid, notFound } from '../../platform/errors.js'
import type { Jobs } from '../../platform/jobs/service.js'
import type { DefinitionsService } from '../report-definitions/service.js'
import type { ReportingClock } from '../scheduler/clocks.js'
import { offsetMs } from '../scheduler/zoned-time.js'
import { enqueueGeneration } from './queue.js'
import * as repo from './repository.js'
import type { InstanceRow } from './repository.js'
import type { DownloadQuery, OneTimeBody, ReportDetail, SearchQuery, SearchResult } from './schemas.js'
import { checkOneTime, parseDateTime } from './validate.js'
import { reportDate, reportDetail, reportTime, searchResult } from './view.js'

export const REPORT_STATUSES: readonly ReportStatus[] = ['COMPLETED', 'PENDING', 'QUEUED', 'RUNNING', 'ERROR', 'NO_DATA']
const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED', 'ADHOC']
const MIME_TYPES = ['application/xml', 'text/csv', 'application/json']
/** Results one search answers at most (the latest windows are cut); narrow the range for more. */
export const SEARCH_LIMIT = 2000

export interface ReportsService {
  /** Throws invalid() with every problem. `created` is false for a request identical to one already made (304). */
  createOneTime(organizationId: string, body: OneTimeBody): Promise<{ created: boolean; reportId: string }>
  /** Throws notFound() when nothing matches. */
  search(organizationId: string, query: SearchQuery, withOrganization?: boolean): Promise<SearchResult[]>
  get(organizationId: string, reportId: string): Promise<ReportDetail>
  /** The completed report a download names; notFound() otherwise, invalid() when several match and reportTime does not choose. */
  findDownload(organizationId: string, query: DownloadQuery): Promise<InstanceRow>
  list(filter: { organizationId?: string; status?: ReportStatus; limit: number }): Promise<InstanceRow[]>
  /** Any organization's instance (operators). */
  instance(id: string): Promise<InstanceRow | undefined>
  /** Queues a finished report again (operators); returns the new job's id. */
  retry(id: string): Promise<string>
  /** Removes finished reports older than the retention, files first; returns how many went. */
  prune(retentionDays: number): Promise<number>
}

export interface ReportsDeps {
  db: Executor
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

    async search(organizationId, query, withOrganization = false) {
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
      const rows = await repo.searchInstances(db, {
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
      })
      if (rows.length === 0) throw notFound([{ reason: 'no reports found' }])
      return rows.map((row) => searchResult(row, definitionId(row.report_definition_name), withOrganization))
    },

    async get(organizationId, reportId) {
      const row = await repo.findInstance(db, organizationId, reportId.toLowerCase())
      if (!row) throw notFound([{ field: 'reportId', reason: 'no report with this id' }])
      return reportDetail(row, definitionId(row.report_definition_name))
    },

    async findDownload(organizationId, query) {
      const date = query.reportDate.replace(/-/g, '')
      const [y, m, d] = [Number(date.slice(0, 4)), Number(date.slice(4, 6)), Number(date.slice(6, 8))]
      const dayStart = Date.UTC(y, m - 1, d)
      if (new Date(dayStart).getUTCDate() !== d || new Date(dayStart).getUTCMonth() !== m - 1) throw invalid([{ field: 'reportDate', reason: 'is not a calendar date' }])
      // Every zone's local date lies within 14 hours of UTC's: fetch that span, then keep the exact local date.
      const candidates = await repo.instancesEnding(db, organizationId, query.reportName, new Date(dayStart - 15 * 3_600_000).toISOString(), new Date(dayStart + DAY_MS + 15 * 3_600_000).toISOString())
      const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`
      let matches = candidates.filter((row) => reportDate(row) === iso)
      if (query.reportTime !== undefined) matches = matches.filter((row) => sameTime(row, query.reportTime!))
      const completed = matches.filter((row) => row.status === 'COMPLETED')
      if (completed.length === 1) return completed[0]!
      if (completed.length > 1) {
        throw invalid([{ field: 'reportTime', reason: `${completed.length} reports named ${query.reportName} end on ${iso}; choose one with reportTime: ${completed.map(reportTime).join(', ')}` }])
      }
      const status = matches.at(-1)?.status
      throw notFound([{ field: 'reportName', reason: status ? `the report is ${status}${status === 'NO_DATA' ? ': no transactions in its window' : ''}` : 'no report of this name ends on this date' }])
    },

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
  }
}

/** reportTime names the window's end: `hh:mm[:ss]` in the report's zone, or with an offset, that offset's time of it. */
function sameTime(row: InstanceRow, text: string): boolean {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:([ +-])(\d{2}):?(\d{2})|(Z))?$/.exec(text.trim())
  if (!m) return false
  const end = Date.parse(row.window_end)
  const offset = m[7] ? 0 : m[4] ? (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6])) * 60_000 : offsetMs(row.timezone, end)
  const local = new Date(end + offset)
  return local.getUTCHours() === Number(m[1]) && local.getUTCMinutes() === Number(m[2]) && local.getUTCSeconds() === Number(m[3] ?? 0)
}
