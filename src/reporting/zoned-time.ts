// Wall-clock time in IANA time zones with nothing but Intl (Node's ICU): the offset of a zone at an instant, the
// local date and time of an instant, and the instant of a local date and time — with the project's policy for the
// local times a change of daylight saving time skips or repeats (see localToInstant).

export interface LocalDateTime {
  year: number
  /** 1–12 */
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    formatters.set(zone, f)
  }
  return f
}

/** The local date and time of an instant (ms since the epoch) in `zone`. */
export function localDateTime(zone: string, instant: number): LocalDateTime {
  const out: LocalDateTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type === 'year' || part.type === 'month' || part.type === 'day' || part.type === 'hour' || part.type === 'minute' || part.type === 'second') out[part.type] = Number(part.value)
  }
  return out
}

/** The zone's offset from UTC at an instant, in ms (east positive): local wall time = instant + offset. */
export function offsetMs(zone: string, instant: number): number {
  const l = localDateTime(zone, instant)
  const wall = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second)
  return wall - (instant - (((instant % 1000) + 1000) % 1000))
}

const DAY_MS = 86_400_000

/**
 * The instant a local date and time names in `zone`. The two cases a change of daylight saving time creates are
 * decided as RFC 5545 (iCalendar) and java.time decide them:
 * - a time the change skips (02:30 on the night clocks go from 02:00 to 03:00) is read with the offset in force
 *   before the change, which lands as far after the gap as it was into it (02:30 → 03:30 the new time);
 * - a time the change repeats (01:30 on the night clocks go back from 02:00 to 01:00) is its first occurrence.
 */
export function localToInstant(zone: string, year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second)
  const before = offsetMs(zone, wall - DAY_MS)
  const after = offsetMs(zone, wall + DAY_MS)
  const early = wall - before
  const late = wall - after
  const valid = (c: number) => offsetMs(zone, c) === wall - c
  const candidates = [early, late].filter(valid)
  if (candidates.length > 0) return Math.min(...candidates)
  return early // inside a gap: the offset before the change
}

/** `YYYY-MM-DD` of a local date. */
export function isoDate(l: Pick<LocalDateTime, 'year' | 'month' | 'day'>): string {
  return `${String(l.year).padStart(4, '0')}-${pad(l.month)}-${pad(l.day)}`
}

/** An instant written in `zone`'s local time with that zone's offset: `2026-03-08T03:30:00-04:00`. */
export function formatInZone(instant: number, zone: string): string {
  const l = localDateTime(zone, instant)
  return `${isoDate(l)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${formatOffset(offsetMs(zone, instant))}`
}

/** `+05:45`, `-03:30`, `+00:00`. */
export function formatOffset(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000)
  return `${ms < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
}

/** Days in a month of the proleptic Gregorian calendar (month 1–12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/** 1 (Sunday) to 7 (Saturday), as the reporting API numbers weekdays. */
export function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1
}

/** The local date `days` after (or before) a date. */
export function addDays(date: { year: number; month: number; day: number }, days: number): { year: number; month: number; day: number } {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days))
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
