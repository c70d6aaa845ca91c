// When a subscription's reports run, as a pure function of its schedule: the run instants in local wall-clock
// time of its zone, and the window each run covers — from the schedule's previous run to this one, so a daily
// window is 23 or 25 real hours across a change of daylight saving time. Local times a change skips or repeats
// follow localToInstant's policy (skipped: read with the offset before the change; repeated: the first one).
//
// The next and previous run cost a few zone conversions whatever the interval: a day's USER_DEFINED runs (up to
// 1,440 of them) are never listed. Each run of a day is its local time less an offset (the local time's distance
// from the instant localToInstant gives it), and that offset is constant over a day, or changes once, on the day
// of a change of daylight saving time (a zone never changes twice within three days: the closest two changes of
// any supported zone from 1970 to 2100 are 6.96 days apart, America/Noronha in October 2000). So a day's runs are
// one or two arithmetic progressions of instants, found with two conversions, or a binary search on the day of a
// change, and the first run after an instant (the last before) is arithmetic on each. Runs of two progressions may
// interleave or coincide (a skipped hour), which is why each is searched and the nearest taken.
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

type LocalDate = { year: number; month: number; day: number }

const MINUTE = 60_000
const DAY_MINUTES = 24 * 60

/** `PT2H30M` → 150 (minutes). */
export function intervalMinutes(interval: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?$/.exec(interval)
  const minutes = m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 0
  if (!(minutes > 0)) throw new RangeError(`not an interval PT#H#M: ${interval}`)
  return minutes
}

/**
 * The local times at which the schedule runs on a day it runs, after local midnight: once at startTime, or for
 * USER_DEFINED at startTime and every interval after it until the day ends (the next day starts again at
 * startTime, so the day's last window may be shorter). `count` times from `first`, `step` minutes apart.
 */
function timesOfDay(schedule: Schedule): { first: number; step: number; count: number } {
  const first = Number(schedule.startTime.slice(0, 2)) * 60 + Number(schedule.startTime.slice(2, 4))
  if (schedule.frequency !== 'USER_DEFINED') return { first, step: DAY_MINUTES, count: 1 }
  const step = intervalMinutes(schedule.interval ?? '')
  return { first, step, count: Math.ceil((DAY_MINUTES - first) / step) }
}

function runsOnDay(schedule: Schedule, date: LocalDate): boolean {
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

/** Runs `from`..`to` (indexes into the day's times) whose instant is the local time less `offset` ms. */
interface Progression {
  from: number
  to: number
  offset: number
}

/** A day's runs: the instant of its k-th time is midnight + (first + k·step) minutes − the offset of k's progression. */
interface DayRuns {
  midnight: number
  first: number
  step: number
  progressions: Progression[]
}

/** Day plans are pure functions of (zone, date, times), asked for again and again by a sweep: a few are kept. */
const plans = new Map<string, DayRuns | null>()
const MAX_PLANS = 4096

function dayRuns(schedule: Schedule, date: LocalDate): DayRuns | null {
  if (!runsOnDay(schedule, date)) return null
  const { first, step, count } = timesOfDay(schedule)
  const key = `${schedule.timezone}|${date.year}-${date.month}-${date.day}|${first}|${step}`
  const known = plans.get(key)
  if (known !== undefined) return known
  const midnight = Date.UTC(date.year, date.month - 1, date.day)
  const offsetOf = (k: number) => {
    const minutes = first + k * step
    const at = localToInstant(schedule.timezone, date.year, date.month, date.day, Math.floor(minutes / 60), minutes % 60)
    return midnight + minutes * MINUTE - at
  }
  const firstOffset = offsetOf(0)
  const lastOffset = count === 1 ? firstOffset : offsetOf(count - 1)
  let progressions: Progression[]
  if (firstOffset === lastOffset) progressions = [{ from: 0, to: count - 1, offset: firstOffset }]
  else {
    // The day of a change: the last time still read with the first offset, by bisection.
    let lo = 0
    let hi = count - 1
    let single = true
    while (hi - lo > 1 && single) {
      const mid = (lo + hi) >>> 1
      const offset = offsetOf(mid)
      if (offset === firstOffset) lo = mid
      else if (offset === lastOffset) hi = mid
      else single = false
    }
    progressions = single
      ? [
          { from: 0, to: lo, offset: firstOffset },
          { from: hi, to: count - 1, offset: lastOffset },
        ]
      : // More than one change in a day, which no supported zone has: every time on its own, as localToInstant reads it.
        Array.from({ length: count }, (_, k) => ({ from: k, to: k, offset: offsetOf(k) }))
  }
  const plan = { midnight, first, step, progressions }
  if (plans.size >= MAX_PLANS) plans.clear()
  plans.set(key, plan)
  return plan
}

const instantOf = (day: DayRuns, p: Progression, k: number) => day.midnight + (day.first + k * day.step) * MINUTE - p.offset

/** The day's first run strictly after `after`, if any. */
function firstRunAfter(day: DayRuns, after: number): number | undefined {
  let best: number | undefined
  for (const p of day.progressions) {
    // The least k with midnight + (first + k·step) min − offset > after.
    const k = Math.max(p.from, Math.floor((after + p.offset - day.midnight - day.first * MINUTE) / (day.step * MINUTE)) + 1)
    if (k > p.to) continue
    const at = instantOf(day, p, k)
    if (best === undefined || at < best) best = at
  }
  return best
}

/** The day's last run strictly before `before`, if any. */
function lastRunBefore(day: DayRuns, before: number): number | undefined {
  let best: number | undefined
  for (const p of day.progressions) {
    const k = Math.min(p.to, Math.ceil((before + p.offset - day.midnight - day.first * MINUTE) / (day.step * MINUTE)) - 1)
    if (k < p.from) continue
    const at = instantOf(day, p, k)
    if (best === undefined || at > best) best = at
  }
  return best
}

/** Far enough to meet a run of any frequency (a month and a day), with a margin for instants shifted by a gap. */
const SEARCH_DAYS = 40

/** The first run strictly after `after`. */
export function nextRun(schedule: Schedule, after: number): number {
  const today = localDateTime(schedule.timezone, after)
  let best = Infinity
  for (let i = -1; i <= SEARCH_DAYS; i++) {
    const day = dayRuns(schedule, addDays(today, i))
    const run = day ? firstRunAfter(day, after) : undefined
    if (run !== undefined && run < best) best = run
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
    const day = dayRuns(schedule, addDays(today, i))
    const run = day ? lastRunBefore(day, before) : undefined
    if (run !== undefined && run > best) best = run
    if (best !== -Infinity && i <= -1) return best
  }
  if (best === -Infinity) throw new Error('schedule never runs')
  return best
}

/** The window the run at `run` covers: since the schedule's previous run. */
export function windowEndingAt(schedule: Schedule, run: number): Window {
  return { start: previousRun(schedule, run), end: run }
}
