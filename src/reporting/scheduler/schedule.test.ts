// The schedule as pure functions: the DST policy on the known 2026 changes of several zones, and a whole year of
// daily, weekly and monthly (day 31) runs per zone checked against properties stated independently of the code;
// then the next and previous run compared with the brute force they replaced (every run of each day listed, one
// zone conversion per local time: kept here as the oracle) on random schedules and instants, many of them around
// changes of daylight saving time, and every run of each 2026 change day of several zones stepped through.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nextRun, previousRun, windowEndingAt, type Schedule } from './schedule.js'
import { addDays, daysInMonth, formatInZone, localDateTime, localToInstant, offsetMs, weekday } from '../zoned-time.js'

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Katmandu', 'GMT']
const daily = (timezone: string, startTime = '0900'): Schedule => ({ frequency: 'DAILY', timezone, startTime, startDay: null, interval: null })
const iso = (ms: number) => new Date(ms).toISOString()
const H = 3_600_000

describe('local time to instant', () => {
  it.each([
    // A skipped time is read with the offset before the change: as far past the gap as it was into it.
    ['America/New_York', '2026-03-08', '0230', '2026-03-08T07:30:00.000Z', '2026-03-08T03:30:00-04:00'],
    ['Europe/London', '2026-03-29', '0130', '2026-03-29T01:30:00.000Z', '2026-03-29T02:30:00+01:00'],
    ['Australia/Sydney', '2026-10-04', '0230', '2026-10-03T16:30:00.000Z', '2026-10-04T03:30:00+11:00'],
    ['Australia/Lord_Howe', '2026-10-04', '0215', '2026-10-03T15:45:00.000Z', '2026-10-04T02:45:00+11:00'],
    ['America/St_Johns', '2026-03-08', '0230', '2026-03-08T06:00:00.000Z', '2026-03-08T03:30:00-02:30'],
    // A repeated time is its first occurrence (the offset before the change).
    ['America/New_York', '2026-11-01', '0130', '2026-11-01T05:30:00.000Z', '2026-11-01T01:30:00-04:00'],
    ['Europe/London', '2026-10-25', '0130', '2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00+01:00'],
    ['Australia/Sydney', '2026-04-05', '0230', '2026-04-04T15:30:00.000Z', '2026-04-05T02:30:00+11:00'],
    ['Australia/Lord_Howe', '2026-04-05', '0145', '2026-04-04T14:45:00.000Z', '2026-04-05T01:45:00+11:00'],
    ['America/St_Johns', '2026-11-01', '0130', '2026-11-01T04:00:00.000Z', '2026-11-01T01:30:00-02:30'],
    // No change at all.
    ['Asia/Katmandu', '2026-06-01', '0000', '2026-05-31T18:15:00.000Z', '2026-06-01T00:00:00+05:45'],
    ['GMT', '2026-06-01', '2359', '2026-06-01T23:59:00.000Z', '2026-06-01T23:59:00+00:00'],
  ])('%s %s %s', (zone, date, hhmm, utc, local) => {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number]
    const at = localToInstant(zone, y, m, d, Number(hhmm.slice(0, 2)), Number(hhmm.slice(2)))
    expect(iso(at)).toBe(utc)
    expect(formatInZone(at, zone)).toBe(local)
  })
})

describe('daily windows across a change of daylight saving time', () => {
  it('are 23 and 25 real hours long in New York, 23.5 and 24.5 on Lord Howe', () => {
    const ny = daily('America/New_York')
    const spring = windowEndingAt(ny, localToInstant('America/New_York', 2026, 3, 8, 9))
    const autumn = windowEndingAt(ny, localToInstant('America/New_York', 2026, 11, 1, 9))
    expect((spring.end - spring.start) / H).toBe(23)
    expect((autumn.end - autumn.start) / H).toBe(25)
    const lh = daily('Australia/Lord_Howe')
    expect((lambda(windowEndingAt(lh, localToInstant('Australia/Lord_Howe', 2026, 10, 4, 9))))).toBe(23.5)
    expect((lambda(windowEndingAt(lh, localToInstant('Australia/Lord_Howe', 2026, 4, 5, 9))))).toBe(24.5)
  })

  it('a run inside the skipped hour happens once, an hour late; inside the repeated hour once, the first time', () => {
    const s = daily('America/New_York', '0230')
    const runs = [...Array(3)].map((_, i) => runsOf(s, { year: 2026, month: 3, day: 7 + i })).flat()
    expect(runs.map((r) => formatInZone(r, 'America/New_York'))).toEqual(['2026-03-07T02:30:00-05:00', '2026-03-08T03:30:00-04:00', '2026-03-09T02:30:00-04:00'])
    const r = daily('America/New_York', '0130')
    const fall = runsOf(r, { year: 2026, month: 11, day: 1 })
    expect(fall.map((x) => formatInZone(x, 'America/New_York'))).toEqual(['2026-11-01T01:30:00-04:00'])
  })
})

const lambda = (w: { start: number; end: number }) => (w.end - w.start) / H

/** Every run of a schedule in 2026, found by stepping nextRun from the last instant of 2025. */
function runsIn2026(s: Schedule): number[] {
  const out: number[] = []
  const end = Date.UTC(2027, 0, 1, 14) // past the end of 2026 local time in every zone
  for (let at = nextRun(s, Date.UTC(2025, 11, 31, 9)); at < end; at = nextRun(s, at)) {
    if (localDateTime(s.timezone, at).year === 2026) out.push(at)
  }
  return out
}

describe.each(ZONES)('a year of runs in %s', (zone) => {
  it('daily at 09:00: one run per local day, at 09:00 local, its first occurrence, each window since the last', () => {
    const runs = runsIn2026(daily(zone))
    expect(runs).toHaveLength(365)
    runs.forEach((at, i) => {
      const l = localDateTime(zone, at)
      expect([l.hour, l.minute, l.second]).toEqual([9, 0, 0])
      // The first occurrence: no instant in the two hours before reads 09:00 too (offsets are whole quarter hours).
      for (let k = 1; k <= 8; k++) expect(localDateTime(zone, at - k * 900_000).hour * 60 + localDateTime(zone, at - k * 900_000).minute).not.toBe(9 * 60)
      const w = windowEndingAt(daily(zone), at)
      if (i > 0) expect(w.start).toBe(runs[i - 1])
      // Wall-clock days: 24 hours less whatever the offset gained since the previous run.
      expect(w.end - w.start).toBe(24 * H - (offsetMs(zone, at) - offsetMs(zone, w.start)))
    })
    expect(new Set(runs.map((r) => formatInZone(r, zone).slice(0, 10))).size).toBe(365)
  })

  it('weekly on Monday (startDay 2) at 23:30: 52 Mondays, windows of 7 local days', () => {
    const s: Schedule = { frequency: 'WEEKLY', timezone: zone, startTime: '2330', startDay: 2, interval: null }
    const runs = runsIn2026(s)
    expect(runs).toHaveLength(52)
    for (const at of runs) {
      const l = localDateTime(zone, at)
      expect(new Date(Date.UTC(l.year, l.month - 1, l.day)).getUTCDay()).toBe(1)
      expect([l.hour, l.minute]).toEqual([23, 30])
      const w = windowEndingAt(s, at)
      expect(w.end - w.start).toBe(7 * 24 * H - (offsetMs(zone, at) - offsetMs(zone, w.start)))
    }
  })

  it("monthly on day 31 at 00:00: each month's 31st or last day", () => {
    const s: Schedule = { frequency: 'MONTHLY', timezone: zone, startTime: '0000', startDay: 31, interval: null }
    const runs = runsIn2026(s)
    expect(runs.map((at) => formatInZone(at, zone).slice(0, 16))).toEqual(
      ['01-31', '02-28', '03-31', '04-30', '05-31', '06-30', '07-31', '08-31', '09-30', '10-31', '11-30', '12-31'].map((d) => `2026-${d}T00:00`),
    )
    expect(iso(windowEndingAt(s, runs[1]!).start)).toBe(iso(runs[0]!))
    expect(iso(previousRun(s, runs[0]!))).toBe(iso(localToInstant(zone, 2025, 12, 31)))
  })
})

describe('USER_DEFINED', () => {
  it('runs at startTime and every interval after it within each local day', () => {
    const s: Schedule = { frequency: 'USER_DEFINED', timezone: 'Asia/Katmandu', startTime: '0000', startDay: null, interval: 'PT5H' }
    const day = runsOf(s, { year: 2026, month: 5, day: 4 }).map((r) => formatInZone(r, 'Asia/Katmandu').slice(11, 16))
    expect(day).toEqual(['00:00', '05:00', '10:00', '15:00', '20:00'])
    const next = nextRun(s, localToInstant('Asia/Katmandu', 2026, 5, 4, 20))
    expect(formatInZone(next, 'Asia/Katmandu')).toBe('2026-05-05T00:00:00+05:45')
    expect(lambda(windowEndingAt(s, next))).toBe(4)
  })

  it('two local times landing on one instant in a skipped hour run once', () => {
    const s: Schedule = { frequency: 'USER_DEFINED', timezone: 'America/New_York', startTime: '0000', startDay: null, interval: 'PT1H' }
    const runs = runsOf(s, { year: 2026, month: 3, day: 8 }).map((r) => formatInZone(r, 'America/New_York').slice(11, 16))
    expect(runs).toHaveLength(23)
    expect(runs.slice(0, 4)).toEqual(['00:00', '01:00', '03:00', '04:00'])
  })
})

type LocalDate = { year: number; month: number; day: number }

/** The runs of the code under test from the local midnight starting `date` to the next, stepped with nextRun. */
function runsOf(s: Schedule, date: LocalDate): number[] {
  const end = localToInstant(s.timezone, ...ymd(addDays(date, 1)))
  const out: number[] = []
  for (let at = nextRun(s, localToInstant(s.timezone, ...ymd(date)) - 1); at < end; at = nextRun(s, at)) out.push(at)
  return out
}
const ymd = (d: LocalDate): [number, number, number] => [d.year, d.month, d.day]

// The brute force nextRun and previousRun replaced: each day's runs listed, one conversion per local time.
const oracle = {
  cache: new Map<string, number[]>(),
  /** Every run whose local date is `date`, ascending, each instant once. */
  runsOn(s: Schedule, date: LocalDate): number[] {
    const key = JSON.stringify([s, date])
    const known = this.cache.get(key)
    if (known) return known
    const start = Number(s.startTime.slice(0, 2)) * 60 + Number(s.startTime.slice(2, 4))
    const runsToday = s.frequency === 'DAILY' || s.frequency === 'USER_DEFINED' || (s.frequency === 'WEEKLY' ? weekday(date.year, date.month, date.day) === (s.startDay ?? 1) : date.day === Math.min(s.startDay ?? 1, daysInMonth(date.year, date.month)))
    const minutes: number[] = []
    if (runsToday) {
      const step = s.frequency === 'USER_DEFINED' ? Number(/(\d+)H/.exec(s.interval!)?.[1] ?? 0) * 60 + Number(/(\d+)M/.exec(s.interval!)?.[1] ?? 0) : 24 * 60
      for (let m = start; m < 24 * 60; m += step) minutes.push(m)
    }
    const runs = [...new Set(minutes.map((m) => localToInstant(s.timezone, date.year, date.month, date.day, Math.floor(m / 60), m % 60)))].sort((a, b) => a - b)
    if (this.cache.size > 5_000) this.cache.clear()
    this.cache.set(key, runs)
    return runs
  },
  next(s: Schedule, after: number): number {
    const today = localDateTime(s.timezone, after)
    let best = Infinity
    for (let i = -1; i <= 40; i++) {
      for (const run of this.runsOn(s, addDays(today, i))) if (run > after && run < best) best = run
      if (best !== Infinity && i >= 1) return best
    }
    throw new Error('schedule never runs')
  },
  previous(s: Schedule, before: number): number {
    const today = localDateTime(s.timezone, before)
    let best = -Infinity
    for (let i = 1; i >= -40; i--) {
      for (const run of this.runsOn(s, addDays(today, i))) if (run < before && run > best) best = run
      if (best !== -Infinity && i <= -1) return best
    }
    throw new Error('schedule never runs')
  },
}

/** Zones with changes of daylight saving time of every kind: an hour, half an hour (Lord Howe), at midnight (Cairo, Havana-like), in the southern hemisphere, Dublin's negative summer offset, St John's −03:30, and Kathmandu's +05:45 with none. */
const DST_ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Katmandu', 'America/St_Johns', 'Australia/Sydney', 'Pacific/Auckland', 'Europe/Dublin', 'Africa/Cairo', 'Asia/Jerusalem', 'America/Godthab', 'Pacific/Norfolk', 'America/Sao_Paulo', 'GMT']

/** The instants at which `zone` changed its offset in `year`, found by bisection between days (Intl only). */
function changesIn(zone: string, year: number): number[] {
  const out: number[] = []
  for (let day = Date.UTC(year, 0, 1); day < Date.UTC(year + 1, 0, 1); day += 86_400_000) {
    if (offsetMs(zone, day) === offsetMs(zone, day + 86_400_000)) continue
    let [lo, hi] = [day, day + 86_400_000]
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000
      if (offsetMs(zone, mid) === offsetMs(zone, lo)) lo = mid
      else hi = mid
    }
    out.push(hi)
  }
  return out
}
const CHANGES = new Map(DST_ZONES.map((zone) => [zone, [2000, 2013, 2023, 2026, 2037].flatMap((y) => changesIn(zone, y))]))

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`
const interval = (minutes: number) => `PT${minutes >= 60 ? `${Math.floor(minutes / 60)}H` : ''}${minutes % 60 ? `${minutes % 60}M` : ''}`

const scheduleArb: fc.Arbitrary<Schedule> = fc
  .record({
    timezone: fc.constantFrom(...DST_ZONES),
    frequency: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED', 'USER_DEFINED', 'USER_DEFINED'),
    // Start times around the hours changes happen at, and any.
    start: fc.oneof(fc.constantFrom(0, 1, 30, 59, 60, 90, 120, 135, 150, 165, 180, 23 * 60 + 30, 23 * 60 + 59), fc.integer({ min: 0, max: 24 * 60 - 1 })),
    // Short intervals cost the oracle a conversion per minute: one case in ten, and longer ones of every kind.
    step: fc.oneof({ weight: 1, arbitrary: fc.constantFrom(1, 2, 3, 5) }, { weight: 9, arbitrary: fc.oneof(fc.constantFrom(7, 13, 15, 29, 30, 45, 60, 90, 150, 23 * 60 + 59), fc.integer({ min: 1, max: 24 * 60 - 1 })) }),
    startDay: fc.integer({ min: 1, max: 31 }),
  })
  .map(({ timezone, frequency, start, step, startDay }) => ({
    timezone,
    frequency: frequency as Schedule['frequency'],
    startTime: hhmm(start),
    startDay: frequency === 'WEEKLY' ? ((startDay - 1) % 7) + 1 : frequency === 'MONTHLY' ? startDay : null,
    interval: frequency === 'USER_DEFINED' ? interval(step) : null,
  }))

/** An instant anywhere from 1995 to 2040, or within two days of one of the zone's changes (the minute of it often exactly). */
const instantFor = (zone: string): fc.Arbitrary<number> => {
  const changes = CHANGES.get(zone)!
  const anywhere = fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2040, 0, 1) })
  if (changes.length === 0) return anywhere
  const near = fc.tuple(fc.constantFrom(...changes), fc.oneof(fc.constant(0), fc.integer({ min: -2 * 1440, max: 2 * 1440 })), fc.constantFrom(0, 0, -1, 1, 30_000)).map(([c, minutes, ms]) => c + minutes * 60_000 + ms)
  return fc.oneof(anywhere, near, near)
}

describe('against the brute force', () => {
  it('the next and previous run of random schedules at random instants, near changes of daylight saving time above all', () => {
    fc.assert(
      fc.property(
        scheduleArb.chain((s) => fc.tuple(fc.constant(s), instantFor(s.timezone))),
        ([s, at]) => {
          expect(nextRun(s, at)).toBe(oracle.next(s, at))
          expect(previousRun(s, at)).toBe(oracle.previous(s, at))
          // On a run instant itself: strictly after and before it.
          const run = oracle.next(s, at)
          expect(nextRun(s, run)).toBe(oracle.next(s, run))
          expect(previousRun(s, run)).toBe(oracle.previous(s, run))
          expect(windowEndingAt(s, run)).toEqual({ start: oracle.previous(s, run), end: run })
        },
      ),
      { numRuns: 400, seed: 19_1 },
    )
  }, 120_000)

  it.each(DST_ZONES.filter((z) => z !== 'GMT' && z !== 'Asia/Katmandu'))('every run around each 2026 change in %s, stepped through, for PT1M, PT7M and PT30M', (zone) => {
    for (const change of CHANGES.get(zone)!.filter((c) => new Date(c).getUTCFullYear() === 2026)) {
      const date = localDateTime(zone, change)
      for (const [startTime, every] of [['0000', 'PT1M'], ['0013', 'PT7M'], ['0145', 'PT30M']] as const) {
        const s: Schedule = { frequency: 'USER_DEFINED', timezone: zone, startTime, startDay: null, interval: every }
        // Three local days around the change, by the brute force (a run of one day may fall on an instant of the next:
        // Nuuk's clocks go from 23:00 to 00:00, so both days' 23:30 and 00:30 are one instant); the same by stepping.
        const expected = [...new Set([-2, -1, 0, 1, 2].flatMap((i) => oracle.runsOn(s, addDays(date, i))))].sort((a, b) => a - b)
        const from = localToInstant(zone, ...ymd(addDays(date, -1)))
        const to = localToInstant(zone, ...ymd(addDays(date, 2)))
        const want = expected.filter((r) => r >= from && r < to)
        const got: number[] = []
        for (let at = nextRun(s, from - 1); at < to; at = nextRun(s, at)) got.push(at)
        expect(got.map(iso), `${zone} ${startTime} ${every}`).toEqual(want.map(iso))
        // Each window since the run before it, stepping back too.
        for (let i = 1; i < got.length; i++) expect(previousRun(s, got[i]!)).toBe(got[i - 1])
      }
    }
  }, 120_000)
})
