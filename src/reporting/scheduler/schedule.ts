// When a subscription's reports run, as a pure function of its schedule: the run instants in local wall-clock
// time of its zone, and the window each run covers — from the schedule's previous run to this one, so a daily
// window is 23 or 25 real hours across a change of daylight saving time. Local times a change skips or repeats
// follow localToInstant's policy (skipped: read with the offset before the change; repeated: the first one).
import { addDays, daysInMonth, localDateTime, localToInstant, weekday } from '../zoned-time.js'

export type ScheduledFrequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'USER_DEFINED'

export interface Schedule {
  frequency: ScheduledFrequency
  timezone: string
  /** `HHMM`, local time. */
  startTime: string
  /** WEEKLY: 1 (Sunday) to 7; MONTHLY: 1 to 31 (the month's last day when it has fewer); else unused. */
  startDay: number | null
  /** USER_DEFINED: `PT#H#M`, the time between runs within a day. */
  interval: string | null
}

export interface Window {
  /** Inclusive, ms since the epoch. */
  start: number
  /** Exclusive: the run instant. */
  end: number
}

/** `PT2H30M` → 150 (minutes). */
export function intervalMinutes(interval: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?$/.exec(interval)
  const minutes = m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 0
  if (!(minutes > 0)) throw new RangeError(`not an interval PT#H#M: ${interval}`)
  return minutes
}

/**
 * The minutes after local midnight at which the schedule runs on a day it runs: once at startTime, or for
 * USER_DEFINED at startTime and every interval after it until the day ends (the next day starts again at
 * startTime, so the day's last window may be shorter).
 */
function minutesOfDay(schedule: Schedule): number[] {
  const start = Number(schedule.startTime.slice(0, 2)) * 60 + Number(schedule.startTime.slice(2, 4))
  if (schedule.frequency !== 'USER_DEFINED') return [start]
  const step = intervalMinutes(schedule.interval ?? '')
  const out: number[] = []
  for (let m = start; m < 24 * 60; m += step) out.push(m)
  return out
}

function runsOnDay(schedule: Schedule, date: { year: number; month: number; day: number }): boolean {
  const { year, month, day } = date
  switch (schedule.frequency) {
    case 'DAILY':
    case 'USER_DEFINED':
      return true
    case 'WEEKLY':
      return weekday(year, month, day) === (schedule.startDay ?? 1)
    case 'MONTHLY':
      return day === Math.min(schedule.startDay ?? 1, daysInMonth(year, month))
  }
}

/** The run instants whose local date is `date`, ascending (two local times landing on one instant run once). */
export function runsOn(schedule: Schedule, date: { year: number; month: number; day: number }): number[] {
  if (!runsOnDay(schedule, date)) return []
  const instants = minutesOfDay(schedule).map((m) => localToInstant(schedule.timezone, date.year, date.month, date.day, Math.floor(m / 60), m % 60))
  return [...new Set(instants)].sort((a, b) => a - b)
}

/** Far enough to meet a run of any frequency (a month and a day), with a margin for instants shifted by a gap. */
const SEARCH_DAYS = 40

/** The first run strictly after `after`. */
export function nextRun(schedule: Schedule, after: number): number {
  const today = localDateTime(schedule.timezone, after)
  let best = Infinity
  for (let i = -1; i <= SEARCH_DAYS; i++) {
    for (const run of runsOn(schedule, addDays(today, i))) if (run > after && run < best) best = run
    // Runs of later days are later (a shift by a gap is less than a day): once one is found, one more day settles it.
    if (best !== Infinity && i >= 1) return best
  }
  if (best === Infinity) throw new Error('schedule never runs')
  return best
}

/** The last run strictly before `before`. */
export function previousRun(schedule: Schedule, before: number): number {
  const today = localDateTime(schedule.timezone, before)
  let best = -Infinity
  for (let i = 1; i >= -SEARCH_DAYS; i--) {
    for (const run of runsOn(schedule, addDays(today, i))) if (run < before && run > best) best = run
    if (best !== -Infinity && i <= -1) return best
  }
  if (best === -Infinity) throw new Error('schedule never runs')
  return best
}

/** The window the run at `run` covers: since the schedule's previous run. */
export function windowEndingAt(schedule: Schedule, run: number): Window {
  return { start: previousRun(schedule, run), end: run }
}
