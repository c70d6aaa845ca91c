import { describe, expect, it } from 'vitest'
import { DomainError } from '../../platform/errors.js'
import { fundingDates, hourSpans, parseTime, periods, readWindow } from './window.js'

const fieldOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    return err instanceof DomainError ? err.details.map((d) => d.field) : err
  }
  return undefined
}

describe('parseTime', () => {
  it('reads UTC, offsets with and without a colon, and fractions to the millisecond', () => {
    expect(parseTime('2026-03-01T00:00:00Z', 't')).toBe(Date.parse('2026-03-01T00:00:00Z'))
    expect(parseTime('2026-03-01T00:00:00.123Z', 't')).toBe(Date.parse('2026-03-01T00:00:00.123Z'))
    expect(parseTime('2026-03-01T00:00:00.1239999Z', 't')).toBe(Date.parse('2026-03-01T00:00:00.123Z'))
    expect(parseTime('2026-03-01T12:00:00-05:00', 't')).toBe(Date.parse('2026-03-01T17:00:00Z'))
    expect(parseTime('2026-03-01T12:00:00.000+0530', 't')).toBe(Date.parse('2026-03-01T06:30:00Z'))
    expect(parseTime('2024-02-29T23:59:59Z', 't')).toBe(Date.parse('2024-02-29T23:59:59Z'))
  })

  it('refuses what is not a time, a date that does not exist, and a time without a zone, naming the field', () => {
    for (const text of ['', 'now', '2026-03-01', '2026-03-01T00:00:00', '2026-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-03-01T24:00:00Z', '2026-03-01T00:60:00Z', '2026-03-01T00:00:60Z', '2026-03-01T00:00:00+15:00', '2026-03-01T00:00:00+05:60']) {
      expect(fieldOf(() => parseTime(text, 'startTime')), text).toEqual(['startTime'])
    }
  })
})

describe('readWindow', () => {
  it('is half-open, at most the given days, and names endTime when reversed, empty or too long', () => {
    expect(readWindow({ startTime: '2026-03-01T00:00:00Z', endTime: '2026-03-02T00:00:00+01:00' }, 1)).toEqual({
      start: '2026-03-01T00:00:00.000Z',
      end: '2026-03-01T23:00:00.000Z',
      startMs: Date.parse('2026-03-01T00:00:00Z'),
      endMs: Date.parse('2026-03-01T23:00:00Z'),
    })
    expect(fieldOf(() => readWindow({ startTime: '2026-03-01T00:00:00Z', endTime: '2026-03-01T00:00:00Z' }, 1))).toEqual(['endTime'])
    expect(fieldOf(() => readWindow({ startTime: '2026-03-02T00:00:00Z', endTime: '2026-03-01T00:00:00Z' }, 1))).toEqual(['endTime'])
    expect(fieldOf(() => readWindow({ startTime: '2026-03-01T00:00:00Z', endTime: '2026-03-02T00:00:00.001Z' }, 1))).toEqual(['endTime'])
    expect(fieldOf(() => readWindow({ startTime: 'x', endTime: '2026-03-02T00:00:00Z' }, 1))).toEqual(['startTime'])
  })
})

describe('fundingDates', () => {
  it('counts a funding date when its midnight is in the window', () => {
    const w = (s: string, e: string) => fundingDates(readWindow({ startTime: s, endTime: e }, 92))
    expect(w('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z')).toEqual({ from: '2026-03-01', to: '2026-04-01' })
    expect(w('2026-03-01T00:00:00Z', '2026-03-31T23:59:59Z')).toEqual({ from: '2026-03-01', to: '2026-04-01' })
    expect(w('2026-03-01T00:00:00.001Z', '2026-03-03T00:00:00Z')).toEqual({ from: '2026-03-02', to: '2026-03-03' })
  })
})

describe('hourSpans', () => {
  const spans = (s: string, e: string) => hourSpans(readWindow({ startTime: s, endTime: e }, 92))
  it('splits a window into a partial first hour, whole hours and a partial last hour', () => {
    expect(spans('2026-03-01T10:30:00Z', '2026-03-01T13:15:00Z')).toEqual({
      head: ['2026-03-01T10:30:00.000Z', '2026-03-01T11:00:00.000Z'],
      whole: ['2026-03-01T11:00:00.000Z', '2026-03-01T13:00:00.000Z'],
      tail: ['2026-03-01T13:00:00.000Z', '2026-03-01T13:15:00.000Z'],
    })
    expect(spans('2026-03-01T10:00:00Z', '2026-03-01T12:00:00Z')).toEqual({ whole: ['2026-03-01T10:00:00.000Z', '2026-03-01T12:00:00.000Z'] })
    expect(spans('2026-03-01T10:10:00Z', '2026-03-01T10:50:00Z')).toEqual({ head: ['2026-03-01T10:10:00.000Z', '2026-03-01T10:50:00.000Z'] })
  })
})

describe('periods', () => {
  const w = readWindow({ startTime: '2026-03-04T06:00:00Z', endTime: '2026-05-02T00:00:00Z' }, 366)
  const iso = (p: { startMs: number; endMs: number }[]) => p.map((x) => `${new Date(x.startMs).toISOString().slice(0, 13)}/${new Date(x.endMs).toISOString().slice(0, 13)}`)

  it('rolls up by UTC day, cut to the window', () => {
    const days = periods(w, 'day')
    expect(days).toHaveLength(59)
    expect(iso(days.slice(0, 2))).toEqual(['2026-03-04T06/2026-03-05T00', '2026-03-05T00/2026-03-06T00'])
  })

  it('rolls up by week from the given start day (1 = Sunday): 2026-03-04 is a Wednesday', () => {
    expect(iso(periods(w, 'week', 1).slice(0, 2))).toEqual(['2026-03-04T06/2026-03-08T00', '2026-03-08T00/2026-03-15T00'])
    expect(iso(periods(w, 'week', 4).slice(0, 2))).toEqual(['2026-03-04T06/2026-03-11T00', '2026-03-11T00/2026-03-18T00'])
    expect(iso(periods(w, 'week', 7).slice(0, 1))).toEqual(['2026-03-04T06/2026-03-07T00'])
  })

  it('rolls up by calendar month', () => {
    expect(iso(periods(w, 'month'))).toEqual(['2026-03-04T06/2026-04-01T00', '2026-04-01T00/2026-05-01T00', '2026-05-01T00/2026-05-02T00'])
  })
})
