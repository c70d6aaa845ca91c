// The schedule as pure functions: the DST policy on the known 2026 changes of several zones, and a whole year of
// daily, weekly and monthly (day 31) runs per zone checked against properties stated independently of the code.
import { describe, expect, it } from 'vitest'
import { nextRun, previousRun, runsOn, windowEndingAt, type Schedule } from './schedule.js'
import { formatInZone, localDateTime, localToInstant, offsetMs } from '../zoned-time.js'

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
    const runs = [...Array(3)].map((_, i) => runsOn(s, { year: 2026, month: 3, day: 7 + i })).flat()
    expect(runs.map((r) => formatInZone(r, 'America/New_York'))).toEqual(['2026-03-07T02:30:00-05:00', '2026-03-08T03:30:00-04:00', '2026-03-09T02:30:00-04:00'])
    const r = daily('America/New_York', '0130')
    const fall = runsOn(r, { year: 2026, month: 11, day: 1 })
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
    const day = runsOn(s, { year: 2026, month: 5, day: 4 }).map((r) => formatInZone(r, 'Asia/Katmandu').slice(11, 16))
    expect(day).toEqual(['00:00', '05:00', '10:00', '15:00', '20:00'])
    const next = nextRun(s, localToInstant('Asia/Katmandu', 2026, 5, 4, 20))
    expect(formatInZone(next, 'Asia/Katmandu')).toBe('2026-05-05T00:00:00+05:45')
    expect(lambda(windowEndingAt(s, next))).toBe(4)
  })

  it('two local times landing on one instant in a skipped hour run once', () => {
    const s: Schedule = { frequency: 'USER_DEFINED', timezone: 'America/New_York', startTime: '0000', startDay: null, interval: 'PT1H' }
    const runs = runsOn(s, { year: 2026, month: 3, day: 8 }).map((r) => formatInZone(r, 'America/New_York').slice(11, 16))
    expect(runs).toHaveLength(23)
    expect(runs.slice(0, 4)).toEqual(['00:00', '01:00', '03:00', '04:00'])
  })
})
