// The sandbox clock's body and answer: an organization's reporting time, and the reports a move queued.
import { Type, type Static } from 'typebox'
import { OrganizationId } from '../reports/schemas.js'

export const ClockBody = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  to: Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 date-time: the organization\'s new reporting time, later than its current one' }),
})

export const ClockState = Type.Object({
  organizationId: Type.String(),
  now: Type.String({ format: 'date-time', description: "The organization's reporting time" }),
  offsetSeconds: Type.Number({ description: 'How far it is ahead of the real clock' }),
  queued: Type.Optional(Type.Array(Type.Object({ reportId: Type.String(), reportName: Type.String(), reportStartTime: Type.String(), reportEndTime: Type.String() }), { description: 'Reports due by the new time, queued in order (with catchingUp, the first of them)' })),
  catchingUp: Type.Optional(Type.Literal(true, { description: 'More reports came due than the answer lists: a background job queues the rest, oldest first' })),
})
export type ClockState = Static<typeof ClockState>
