// Each organization's reporting time. In production it is the server's clock. In the sandbox an organization may
// move its own reporting clock ahead (POST /sandbox/v1/clock, `finapi clock advance`): its reporting time is then
// the server's clock plus the offset it chose, and keeps running from there; no other organization's time moves.
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { conflict, invalid } from '../../platform/errors.js'
import { clockOffset, clockOffsets, moveClock, removeClock } from './repository.js'

export interface ReportingClock {
  readonly sandbox: boolean
  /** How far an organization's reporting time is ahead of the server's, in ms. */
  offset(organizationId: string): Promise<number>
  /** Every organization whose clock was moved, with its offset (none in production). */
  offsets(): Promise<Map<string, number>>
  now(organizationId: string): Promise<Date>
  /** Moves an organization's reporting time forward to `to`; throws invalid() when `to` is not later than its time now. */
  advance(organizationId: string, to: Date): Promise<{ from: Date; to: Date; offsetMs: number }>
  /**
   * Puts an organization's reporting time back on the server's clock. Reports already made stay; a subscription
   * whose next run the move had reached runs again when the real time reaches it.
   */
  realTime(organizationId: string): Promise<void>
}

export function createReportingClock(deps: { db: Executor; clock: Clock; sandbox: boolean }): ReportingClock {
  const { db, clock, sandbox } = deps
  const offset = (organizationId: string) => (sandbox ? clockOffset(db, organizationId) : Promise.resolve(0))
  return {
    sandbox,
    offset,
    offsets: () => (sandbox ? clockOffsets(db) : Promise.resolve(new Map())),
    async now(organizationId) {
      return new Date(clock.now().getTime() + (await offset(organizationId)))
    },
    async advance(organizationId, to) {
      if (!sandbox) throw invalid([{ reason: 'the reporting clock moves only in sandbox mode' }])
      const real = clock.now().getTime()
      const before = await offset(organizationId)
      if (to.getTime() <= real + before) throw invalid([{ field: 'to', reason: `must be later than the organization's reporting time now, ${new Date(real + before).toISOString()}` }])
      const after = to.getTime() - real
      if (!(await moveClock(db, organizationId, before, after, new Date(real).toISOString()))) throw conflict([{ field: 'to', reason: 'the clock was moved by another call meanwhile; read it and try again' }])
      return { from: new Date(real + before), to, offsetMs: after }
    },
    async realTime(organizationId) {
      if (!sandbox) throw invalid([{ reason: 'the reporting clock moves only in sandbox mode' }])
      await removeClock(db, organizationId)
    },
  }
}
