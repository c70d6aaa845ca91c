// What the subscription pages show of a subscription: its next run, in the subscription's own time zone.
import type { Subscription } from '../../reporting/report-subscriptions/schemas.js'
import { nextRun, type ScheduledFrequency } from '../../reporting/scheduler/schedule.js'
import { localDateTime } from '../../reporting/zoned-time.js'

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** An instant as `YYYY-MM-DD HH:MM` local time in `zone`. */
export function localTime(zone: string, instant: number): string {
  const t = localDateTime(zone, instant)
  return `${t.year}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}`
}

/** The `HHMM` a subscription starts at: its first run's local time (the API sends it as a date-time). */
export function startHhmm(s: Pick<Subscription, 'startTime' | 'timezone'>): string {
  const t = localDateTime(s.timezone, Date.parse(s.startTime))
  return `${pad(t.hour)}${pad(t.minute)}`
}

/** The next run after `now`, in the subscription's zone, by the scheduler's own rule; undefined if it has none. */
export function nextRunText(s: Subscription, now: number): string | undefined {
  try {
    const run = nextRun(
      { frequency: s.reportFrequency as ScheduledFrequency, timezone: s.timezone, startTime: startHhmm(s), startDay: s.startDay ?? null, interval: s.reportInterval ?? null },
      Math.max(now, Date.parse(s.startTime) - 1),
    )
    return `${localTime(s.timezone, run)} (${s.timezone})`
  } catch {
    return undefined
  }
}
