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
  const offset = knownOffset(zone, instant)
  if (offset === undefined) return intlLocalDateTime(zone, instant)
  const d = new Date(instant + offset)
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() }
}

/** The zone's offset from UTC at an instant, in ms (east positive): local wall time = instant + offset. */
export function offsetMs(zone: string, instant: number): number {
  return knownOffset(zone, instant) ?? intlOffsetMs(zone, instant)
}

/** What Intl itself says (the reference the faster path is tested against, zoned-time.test.ts). */
export function intlLocalDateTime(zone: string, instant: number): LocalDateTime {
  const out: LocalDateTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type === 'year' || part.type === 'month' || part.type === 'day' || part.type === 'hour' || part.type === 'minute' || part.type === 'second') out[part.type] = Number(part.value)
  }
  return out
}

export function intlOffsetMs(zone: string, instant: number): number {
  const l = intlLocalDateTime(zone, instant)
  const wall = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second)
  return wall - (instant - (((instant % 1000) + 1000) % 1000))
}

// A formatToParts per time was the report views' largest own cost (each report shows several times in its zone):
// the offset is asked of Intl once per zone and UTC hour, at the hour's first and last second, and kept when the
// two agree; local times then follow by arithmetic. An hour in which the offset changes (a DST change, a zone's
// change of standard time, at any minute) is not kept and each of its instants asks Intl. This assumes no zone
// changes its offset and back within one hour, which no time zone rule has done. Years 1900–9999 only: Intl writes
// years before 1 by era, and Date.UTC reads years 0–99 as 1900–1999.
const HOUR_MS = 3_600_000
const FAST_FROM = Date.UTC(1900, 0, 1)
const FAST_TO = Date.UTC(9999, 0, 1)
/** Per zone, per UTC hour (ms / HOUR_MS): its offset, or null when the offset changes within that hour. */
const offsets = new Map<string, Map<number, number | null>>()
/** Hours kept per zone before the zone's entries are dropped: a report's times cluster in a few hours. */
const HOURS_KEPT = 10_000

function knownOffset(zone: string, instant: number): number | undefined {
  if (!(instant >= FAST_FROM && instant < FAST_TO)) return undefined
  const hour = Math.floor(instant / HOUR_MS)
  let byHour = offsets.get(zone)
  if (!byHour) {
    intlOffsetMs(zone, instant) // an unknown zone throws here, as Intl does, before anything is kept for it
    offsets.set(zone, (byHour = new Map()))
  }
  let offset = byHour.get(hour)
  if (offset === undefined) {
    const first = intlOffsetMs(zone, hour * HOUR_MS)
    offset = first === intlOffsetMs(zone, hour * HOUR_MS + HOUR_MS - 1000) ? first : null
    if (byHour.size >= HOURS_KEPT) byHour.clear()
    byHour.set(hour, offset)
  }
  return offset ?? undefined
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
