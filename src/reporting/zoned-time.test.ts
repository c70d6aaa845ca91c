// The report views' local times by arithmetic on an offset kept per zone and UTC hour, against Intl itself (what
// every time was before): random instants over two centuries in the spec's zones and others with unusual changes,
// and every minute around each change of offset in 2020–2030, must give the same local time, offset and text.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatInZone, formatOffset, intlLocalDateTime, intlOffsetMs, isoDate, localDateTime, offsetMs, type LocalDateTime } from './zoned-time.js'
import { TIME_ZONES } from './report-subscriptions/time-zones.js'

// Beyond the spec's list: half-hour DST (Lord Howe), negative DST (Dublin, in the list), a two-hour DST (Troll),
// a skipped day (Apia 2011), Ramadan suspensions (Casablanca), +12:45 (Chatham), a local mean time past 1900
// (Monrovia until 1972).
const ZONES = [...TIME_ZONES, 'Antarctica/Troll', 'Pacific/Apia', 'Africa/Casablanca', 'Pacific/Chatham', 'Africa/Monrovia', 'UTC']
const YEAR_1900 = Date.UTC(1900, 0, 1)
const YEAR_2100 = Date.UTC(2100, 0, 1)
const H = 3_600_000
const DAY = 24 * H

const pad = (n: number) => String(n).padStart(2, '0')
const intlText = (l: LocalDateTime, offset: number) => `${isoDate(l)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${formatOffset(offset)}`

function same(zone: string, instant: number) {
  const expected = intlLocalDateTime(zone, instant)
  expect(localDateTime(zone, instant), `${zone} ${instant}`).toEqual(expected)
  expect(offsetMs(zone, instant), `${zone} ${instant}`).toBe(intlOffsetMs(zone, instant))
  expect(formatInZone(instant, zone)).toBe(intlText(expected, intlOffsetMs(zone, instant)))
}

/** The same checks as same(), without expect's cost per call: the exhaustive scan makes a few hundred thousand. */
function agrees(zone: string, instant: number): boolean {
  const a = localDateTime(zone, instant)
  const b = intlLocalDateTime(zone, instant)
  const offset = intlOffsetMs(zone, instant)
  return (
    a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute && a.second === b.second &&
    offsetMs(zone, instant) === offset && formatInZone(instant, zone) === intlText(b, offset)
  )
}

describe('local times without Intl per call', () => {
  it('agree with Intl at random instants, 1900–2100, in every zone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: YEAR_1900, max: YEAR_2100 }), (zone, instant) => same(zone, instant)),
      { numRuns: 20_000 },
    )
  })

  it('agree with Intl at many instants of one hour (the kept offset reused)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: H - 1 }), (zone, hour, ms) => same(zone, Date.UTC(2026, 5, 1, hour) + ms)),
      { numRuns: 5_000 },
    )
  })

  it('agree with Intl every minute (and at random seconds) around each change of offset, 2025–2027', () => {
    let changes = 0
    for (const zone of ZONES) {
      for (let day = Date.UTC(2025, 0, 1); day < Date.UTC(2028, 0, 1); day += DAY) {
        if (intlOffsetMs(zone, day) === intlOffsetMs(zone, day + DAY)) continue
        changes++
        // The UTC hour the change falls in, then every minute from an hour before it to two after.
        let hour = day
        while (intlOffsetMs(zone, hour + H) === intlOffsetMs(zone, day)) hour += H
        const wrong: number[] = []
        for (let t = hour - H; t <= hour + 3 * H; t += 60_000) if (!agrees(zone, t)) wrong.push(t)
        fc.assert(fc.property(fc.integer({ min: hour - H, max: hour + 2 * H }), (t) => agrees(zone, t)), { numRuns: 30 })
        expect(wrong, zone).toEqual([])
      }
    }
    expect(changes).toBeGreaterThan(100)
  })

  it('outside 1900–9999, and for an unknown zone, answer as Intl does', () => {
    for (const instant of [Date.UTC(1899, 11, 31, 23), Date.UTC(50, 0, 1), -62_200_000_000_000, Date.UTC(9999, 5, 1)]) same('Europe/Amsterdam', instant)
    expect(() => localDateTime('Mars/Olympus_Mons', 0)).toThrow(RangeError)
    expect(() => offsetMs('Mars/Olympus_Mons', 0)).toThrow(RangeError)
  })
})
