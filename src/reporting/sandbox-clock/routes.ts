// GET and POST /sandbox/v1/clock, behind the reporting gateway: the acting organization's reporting time, read or
// moved forward (service.ts); a move that leaves reports for a catch-up job answers 202.
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { ClockBody, ClockState } from './schemas.js'
import { CLOCK_INLINE_WINDOWS, type SandboxClock } from './service.js'

const tags = ['Sandbox']

export async function clockRoutes(scope: App, deps: { sandboxClock: SandboxClock }): Promise<void> {
  scope.get(
    '/sandbox/v1/clock',
    { schema: { operationId: 'getSandboxClock', summary: "The organization's reporting time", tags, response: { 200: ClockState, 400: failureBody(['INVALID_DATA']) } } },
    async (request) => deps.sandboxClock.read(actingOrganization(request).id),
  )
  scope.post(
    '/sandbox/v1/clock',
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
