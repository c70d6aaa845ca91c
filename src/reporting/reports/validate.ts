// The meaning of a one-time report request, checked after its shape: every problem collected and named by the
// body member at fault. Returns the normalized request and its hash, the key that makes an identical request a 304.
import { createHash } from 'node:crypto'
import type { ErrorDetail } from '../../platform/errors.js'
import type { DefinitionFacts, DefinitionsService } from '../report-definitions/service.js'
import { checkContent, reportFormats, type ReportContent } from '../report-subscriptions/validate.js'
import { TIME_ZONES } from '../report-subscriptions/time-zones.js'
import { localToInstant } from '../zoned-time.js'
import type { OneTimeBody } from './schemas.js'

const ZONES = new Set(TIME_ZONES)
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/
const DAY_MS = 86_400_000

export interface OneTimeRequest extends ReportContent {
  definition: DefinitionFacts
  reportName: string
  reportMimeType: string
  timezone: string
  /** ms since the epoch; start inclusive, end exclusive. */
  start: number
  end: number
  groupName: string | null
  /** What makes two requests the same one (304): every normalized member and the organization. */
  hash: string
}

export type CheckedOneTime = { ok: true; value: OneTimeRequest } | { ok: false; details: ErrorDetail[] }

/**
 * An ISO 8601 date-time. With an offset (or Z) it names that instant; without one, it is a local time in the
 * report's zone (read with the scheduler's policy for skipped and repeated times). Undefined when it is no date-time.
 */
export function parseDateTime(text: string, zone: string | undefined): number | undefined {
  const m = DATE_TIME.exec(text)
  if (!m) return undefined
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number]
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || s > 59) return undefined
  const ms = m[7] ? Math.floor(Number(m[7]) * 1000) : 0
  if (m[8] === undefined) return zone === undefined ? undefined : localToInstant(zone, y, mo, d, h, mi, s) + ms
  const offset = m[8] === 'Z' ? 0 : (m[8].startsWith('-') ? -1 : 1) * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(-2))) * 60_000
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset
}

export function checkOneTime(organizationId: string, body: OneTimeBody, definitions: DefinitionsService, limits: { maxWindowDays: number }): CheckedOneTime {
  const problems: ErrorDetail[] = []
  const problem = (field: string, reason: string) => problems.push({ field, reason })

  const definition = definitions.find(body.reportDefinitionName)
  if (!definition) problem('reportDefinitionName', 'unknown report definition')
  const reportMimeType = body.reportMimeType ?? 'text/csv'
  if (definition && !reportFormats(definition).includes(reportMimeType)) problem('reportMimeType', `must be one of ${reportFormats(definition).join(', ')}`)
  if (body.reportFrequency !== undefined && body.reportFrequency.toUpperCase() !== 'ADHOC') problem('reportFrequency', 'a one-time report is ADHOC')

  let timezone: string | undefined = body.timezone ?? body.timeZone ?? 'GMT'
  if (body.timezone !== undefined && body.timeZone !== undefined && body.timezone !== body.timeZone) {
    problem('timeZone', 'timezone and timeZone disagree')
    timezone = undefined
  } else if (!ZONES.has(timezone)) {
    problem(body.timezone !== undefined ? 'timezone' : 'timeZone', 'is not a supported time zone')
    timezone = undefined
  }

  const start = parseDateTime(body.reportStartTime, timezone)
  const end = parseDateTime(body.reportEndTime, timezone)
  if (start === undefined) problem('reportStartTime', 'must be an ISO 8601 date-time, e.g. 2026-03-01T00:00:00Z')
  if (end === undefined) problem('reportEndTime', 'must be an ISO 8601 date-time, e.g. 2026-03-02T00:00:00Z')
  if (start !== undefined && end !== undefined) {
    if (end <= start) problem('reportEndTime', 'must be later than reportStartTime')
    else if (end - start > limits.maxWindowDays * DAY_MS) problem('reportEndTime', `the window may be at most ${limits.maxWindowDays} days (REPORT_MAX_WINDOW_DAYS)`)
  }

  const content = checkContent(body, definition, reportMimeType, problems)
  if (problems.length || !definition || !timezone || start === undefined || end === undefined) return { ok: false, details: problems }

  const groupName = body.groupName || null
  const normalized = {
    organizationId,
    reportName: body.reportName,
    definition: definition.name,
    fields: content.reportFields,
    filters: content.reportFilters,
    preferences: content.reportPreferences,
    mime: reportMimeType,
    timezone,
    start,
    end,
    groupName,
  }
  const hash = createHash('sha256').update(JSON.stringify(normalized)).digest('hex')
  return { ok: true, value: { ...content, definition, reportName: body.reportName, reportMimeType, timezone, start, end, groupName, hash } }
}
