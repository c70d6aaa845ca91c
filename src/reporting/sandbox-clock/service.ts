// The sandbox's reporting clock: an organization reads its reporting time, or moves it forward, which queues every
// report due for it by then, in order, as the scheduler would have (the job runner generates them within a poll).
import { invalid } from '../../platform/errors.js'
import { parseDateTime } from '../reports/validate.js'
import type { ReportingClock } from '../clocks/service.js'
import type { Scheduler } from '../scheduler/service.js'
import type { ClockState } from './schemas.js'

export interface SandboxClock {
  read(organizationId: string): Promise<ClockState>
  /** Moves the organization's reporting time to `to` and queues what fell due. */
  advance(organizationId: string, to: string): Promise<ClockState>
}

export function createSandboxClock(deps: { reportingClock: ReportingClock; scheduler: Scheduler }): SandboxClock {
  const read = async (organizationId: string): Promise<ClockState> => {
    const offset = await deps.reportingClock.offset(organizationId)
    return { organizationId, now: (await deps.reportingClock.now(organizationId)).toISOString(), offsetSeconds: offset / 1000 }
  }
  return {
    read,
    async advance(organizationId, to) {
      const instant = parseDateTime(to, 'GMT')
      if (instant === undefined) throw invalid([{ field: 'to', reason: 'must be an ISO 8601 date-time, e.g. 2026-03-01T09:00:00Z' }])
      // First what was due before the move (a subscription made a moment ago gets its schedule from the time it was
      // made, as a server's next sweep would have given it); then everything due by the new time.
      const before = await deps.scheduler.sweep({ organizationId })
      await deps.reportingClock.advance(organizationId, new Date(instant))
      const after = await deps.scheduler.sweep({ organizationId })
      const queued = [...before.queued, ...after.queued]
      const iso = (ms: number) => new Date(ms).toISOString()
      return { ...(await read(organizationId)), queued: queued.map((q) => ({ reportId: q.reportId, reportName: q.reportName, reportStartTime: iso(q.start), reportEndTime: iso(q.end) })) }
    },
  }
}
