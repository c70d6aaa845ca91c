// The sandbox's reporting clock, under /sandbox/v1 behind the reporting gateway: read it, or move the acting
// organization's reporting time forward, which queues every report due for it by then, in order, as the
// scheduler would have (the job runner generates them within a poll). A move that makes more reports due than one
// answer queues (CLOCK_INLINE_WINDOWS) is answered at once, 202, with those it queued; a catch-up job queues the
// rest a slice at a time, taking turns with other organizations, as their reports are generated.
import type { App } from '../../platform/http/app.js'
import { invalid } from '../../platform/errors.js'
import { actingOrganization } from '../gateway.js'
import { failureBody } from '../schemas.js'
import { ClockBody, ClockState } from '../reports/schemas.js'
import { parseDateTime } from '../reports/validate.js'
import type { ReportingClock } from './clocks.js'
import type { QueuedReport, Scheduler } from './service.js'

const tags = ['Sandbox']

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
  }
}

export async function clockRoutes(scope: App, deps: { sandboxClock: SandboxClock }): Promise<void> {
  scope.get(
    '/clock',
    { schema: { operationId: 'getSandboxClock', summary: "The organization's reporting time", tags, response: { 200: ClockState, 400: failureBody(['INVALID_DATA']) } } },
    async (request) => deps.sandboxClock.read(actingOrganization(request).id),
  )
  scope.post(
    '/clock',
    {
      schema: {
        operationId: 'advanceSandboxClock',
        summary: "Move the organization's reporting time forward",
        description: `Sandbox only. Every report due for the organization up to \`to\` is queued, oldest first, exactly as the scheduler would have; other organizations are untouched. 200 lists them all; when more than ${CLOCK_INLINE_WINDOWS} came due, 202 lists the first ${CLOCK_INLINE_WINDOWS} with \`catchingUp: true\`, and a background job queues the rest, taking turns with other organizations (GET /reporting/v3/reports lists them).`,
        tags,
        body: ClockBody,
        response: { 200: ClockState, 202: ClockState, 400: failureBody(['INVALID_DATA']), 409: failureBody(['DUPLICATE_REQUEST']) },
      },
    },
    async (request, reply) => {
      const { complete, ...state } = await deps.sandboxClock.advance(actingOrganization(request).id, request.body.to)
      return reply.code(complete ? 200 : 202).send(state)
    },
  )
}
