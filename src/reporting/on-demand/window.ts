// The time window of an on-demand report: `startTime` and `endTime` as ISO 8601 with a zone, read exactly (a
// calendar date that does not exist is refused, not rolled over), half-open [start, end), and at most a documented
// number of days long. Pure, so the edge cases are unit-tested beside it.
import { invalid } from '../../platform/errors.js'

/** The longest window the detail, funding, conversion and notification reports take: a quarter (92 days). */
export const MAX_WINDOW_DAYS = 92
/** Payment batch summaries roll up by month, so they take a year. */
export const MAX_SUMMARY_WINDOW_DAYS = 366

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** The form the schemas accept (`yyyy-MM-dd'T'HH:mm:ss[.SSS](Z|±HH:mm|±HHmm)`); read exactly by parseTime. */
export const TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:?\\d{2})$'
const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/

export interface Window {
  /** ISO-8601 UTC with milliseconds, as the store writes times. */
  start: string
  end: string
  startMs: number
  endMs: number
}

/** Milliseconds since the epoch of an ISO 8601 time with a zone; throws invalid() naming the field. */
export function parseTime(text: string, field: string): number {
  const m = TIME.exec(text)
  if (!m) throw invalid([{ field, reason: 'must be an ISO 8601 date-time with a zone, e.g. 2026-03-01T00:00:00.000Z' }])
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  const check = new Date(local)
  const exists = check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day && hour < 24 && minute < 60 && second < 60
  const offsetHours = Number(m[10] ?? 0)
  const offsetMinutes = Number(m[11] ?? 0)
  if (!exists || offsetHours > 14 || offsetMinutes > 59) throw invalid([{ field, reason: `is not a valid date-time: ${text}` }])
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  return local - offset
}

/** The window of a query; throws invalid() naming endTime when it is empty, reversed or longer than `maxDays`. */
export function readWindow(query: { startTime: string; endTime: string }, maxDays: number): Window {
  const startMs = parseTime(query.startTime, 'startTime')
  const endMs = parseTime(query.endTime, 'endTime')
  if (endMs <= startMs) throw invalid([{ field: 'endTime', reason: 'must be after startTime' }])
  if (endMs - startMs > maxDays * DAY_MS) throw invalid([{ field: 'endTime', reason: `the window may span at most ${maxDays} days` }])
  return { start: iso(startMs), end: iso(endMs), startMs, endMs }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
export const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS

/**
 * The funding dates in a window: a funding date counts when its midnight (UTC) is in [start, end), so
 * 2026-03-01T00:00:00Z to 2026-04-01T00:00:00Z is March, and an end of 2026-03-31T23:59:59Z also includes March 31.
 * Returns `YYYY-MM-DD` bounds, `to` exclusive.
 */
export function fundingDates(window: Window): { from: string; to: string } {
  const day = (ms: number) => iso(Math.ceil(ms / DAY_MS) * DAY_MS).slice(0, 10)
  return { from: day(window.startMs), to: day(window.endMs) }
}

/** Hour-aligned pieces of a window: a partial first hour, the whole hours, a partial last hour (any may be empty). */
export function hourSpans(window: Window): { head?: [string, string]; whole?: [string, string]; tail?: [string, string] } {
  const from = ceilHour(window.startMs)
  const to = floorHour(window.endMs)
  if (from >= to) return { head: [window.start, window.end] }
  return {
    ...(window.startMs < from ? { head: [window.start, iso(from)] as [string, string] } : {}),
    whole: [iso(from), iso(to)],
    ...(to < window.endMs ? { tail: [iso(to), window.end] as [string, string] } : {}),
  }
}

export type RollUp = 'day' | 'week' | 'month'

export interface Period {
  startMs: number
  endMs: number
}

/**
 * The periods a window rolls up into, in UTC: days, weeks starting on `startDayOfWeek` (1 = Sunday … 7 = Saturday,
 * as the subscriptions number days) or calendar months; the first and last are cut to the window.
 */
export function periods(window: Window, rollUp: RollUp, startDayOfWeek = 1): Period[] {
  const out: Period[] = []
  let start = window.startMs
  while (start < window.endMs) {
    const next = Math.min(nextBoundary(start, rollUp, startDayOfWeek), window.endMs)
    out.push({ startMs: start, endMs: next })
    start = next
  }
  return out
}

function nextBoundary(ms: number, rollUp: RollUp, startDayOfWeek: number): number {
  const date = new Date(ms)
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
  if (rollUp === 'day') return midnight + DAY_MS
  if (rollUp === 'month') return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
  const daysAhead = (startDayOfWeek - 1 - date.getUTCDay() + 7) % 7 || 7
  return midnight + daysAhead * DAY_MS
}
