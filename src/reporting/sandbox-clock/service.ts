// The sandbox's reporting clock: an organization reads its reporting time, or moves it forward, which queues every
// report due for it by then, in order, as the scheduler would have (the job runner generates them within a poll). A
// move that makes more reports due than one answer queues (CLOCK_INLINE_WINDOWS) queues those at once, and a
// catch-up job queues the rest a slice at a time, taking turns with other organizations, as their reports are
// generated.
import { invalid } from '../../platform/errors.js'
import type { ReportingClock } from '../clocks/service.js'
import { parseDateTime } from '../reports/validate.js'
import type { QueuedReport, Scheduler } from '../scheduler/service.js'
import type { ClockState } from './schemas.js'

/** Windows a move queues before it answers: a month and more of daily reports, a transaction each. */
export const CLOCK_INLINE_WINDOWS = 50

export interface ClockAdvance extends ClockState {
  /** False when more came due than the answer queued (`catchingUp`): the rest is queued after it. */
  complete: boolean
}

export interface SandboxClock {
  read(organizationId: string): Promise<ClockState>
  /**
   * Moves the organization's reporting time to `to` and queues what fell due, up to CLOCK_INLINE_WINDOWS windows.
   * What is left is queued by a catch-up job, or, with `catchUp: 'caller'`, by the caller's own sweeps.
   */
  advance(organizationId: string, to: string, options?: { catchUp?: 'job' | 'caller' }): Promise<ClockAdvance>
  /** Back to real time: the organization's reporting time is the server's clock again (offset 0). */
  realTime(organizationId: string): Promise<ClockState>
}

const iso = (ms: number) => new Date(ms).toISOString()

/** How the clock's answer lists a queued report. */
export const listed = (q: QueuedReport) => ({ reportId: q.reportId, reportName: q.reportName, reportStartTime: iso(q.start), reportEndTime: iso(q.end) })

export function createSandboxClock(deps: { reportingClock: ReportingClock; scheduler: Scheduler }): SandboxClock {
  const read = async (organizationId: string): Promise<ClockState> => {
    const offset = await deps.reportingClock.offset(organizationId)
    return { organizationId, now: (await deps.reportingClock.now(organizationId)).toISOString(), offsetSeconds: offset / 1000 }
  }
  return {
    read,
    async advance(organizationId, to, options = {}) {
      const instant = parseDateTime(to, 'GMT')
      if (instant === undefined) throw invalid([{ field: 'to', reason: 'must be an ISO 8601 date-time, e.g. 2026-03-01T09:00:00Z' }])
      // First what was due before the move (a subscription made a moment ago gets its schedule from the time it was
      // made, as a server's next sweep would have given it); then everything due by the new time.
      const before = await deps.scheduler.sweep({ organizationId, maxWindows: CLOCK_INLINE_WINDOWS })
      const moved = await deps.reportingClock.advance(organizationId, new Date(instant))
      const left = CLOCK_INLINE_WINDOWS - before.queued.length
      const after = left > 0 ? await deps.scheduler.sweep({ organizationId, maxWindows: left }) : { queued: [], more: true }
      const complete = !before.more && !after.more
      if (!complete && (options.catchUp ?? 'job') === 'job') await deps.scheduler.catchUp(organizationId, String(moved.offsetMs))
      const queued = [...before.queued, ...after.queued].map(listed)
      return { ...(await read(organizationId)), queued, complete, ...(complete ? {} : { catchingUp: true }) }
    },
    async realTime(organizationId) {
      await deps.reportingClock.realTime(organizationId)
      return read(organizationId)
    },
  }
}
