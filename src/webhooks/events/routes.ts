// Publishing events over HTTP: an operator's invoicing system posts the invoicing events it sends (signed like any
// reporting call, for its organization or one below it), and in sandbox mode anyone fires any event type with
// sample data to try a receiver.
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import type { EventPublisher } from '../types.js'
import type { SandboxTrigger } from './sandbox.js'
import { PublishBody, PublishedEvent, SandboxEventBody } from './schemas.js'

const tags = ['Webhooks']
const responses = { 201: PublishedEvent, 400: failureBody(['INVALID_DATA']) }

export async function ingestionRoutes(scope: App, deps: { events: EventPublisher }): Promise<void> {
  scope.post(
    '/webhooks/v1/events',
    { schema: { operationId: 'publishEvent', summary: 'Publish an event (an invoicing system’s invoice e-mails)', tags, body: PublishBody, response: responses } },
    async (request, reply) => {
      const organizationId = actingOrganization(request).id
      const { eventType, data, preferences, metadata, eventDate } = request.body
      const published = await deps.events.publish({ eventType, organizationId, data, preferences, metadata, source: 'api', ...(eventDate ? { eventDate: new Date(eventDate) } : {}) })
      return reply.code(201).send({ eventType, organizationId, ...published })
    },
  )
}

export async function sandboxEventRoutes(scope: App, deps: { sandboxTrigger: SandboxTrigger }): Promise<void> {
  scope.post(
    '/sandbox/v1/events',
    {
      schema: {
        operationId: 'sandboxTriggerEvent',
        summary: 'Sandbox: fire an event with realistic sample data',
        description: 'Any event type, for your organization or one below it; `data` overrides members of the sample data.',
        tags,
        body: SandboxEventBody,
        response: responses,
      },
    },
    async (request, reply) => reply.code(201).send(await deps.sandboxTrigger.trigger(actingOrganization(request).id, request.body.eventType, request.body.data)),
  )
}
