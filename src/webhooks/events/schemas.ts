// Wire schemas of event publishing: the operator's ingestion call (POST /webhooks/v1/events) and the sandbox trigger
// (POST /sandbox/v1/events), both this project's own.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

const OrganizationId = Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN, description: 'Where it happened: your organization (default) or one below it' })
const Data = Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { description: 'The payload element’s data; invoicing events hold strings (the spec’s fields)' })

export const PublishBody = Type.Object({
  eventType: Type.String({ minLength: 1, maxLength: 128, description: 'One of the event types of GET /notification-subscriptions/v2/products/{organizationId}' }),
  organizationId: Type.Optional(OrganizationId),
  data: Data,
  preferences: Type.Optional(Type.Object({ contacts: Type.Optional(Type.Array(Type.Object({ firstName: Type.Optional(Type.String()), lastName: Type.Optional(Type.String()), contact: Type.Optional(Type.String()), type: Type.Optional(Type.String()) }), { maxItems: 50 })) })),
  metadata: Type.Optional(Type.Object({ from: Type.Optional(Type.Object({ displayName: Type.Optional(Type.String()) })), reply: Type.Optional(Type.Object({ email: Type.Optional(Type.String()) })), sentBy: Type.Optional(Type.String()) })),
  eventDate: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened (default now)' })),
})
export type PublishBody = Static<typeof PublishBody>

export const SandboxEventBody = Type.Object({
  eventType: Type.String({ minLength: 1, maxLength: 128 }),
  organizationId: Type.Optional(OrganizationId),
  data: Type.Optional(Data),
})
export type SandboxEventBody = Static<typeof SandboxEventBody>

export const PublishedEvent = Type.Object(
  {
    eventId: Type.String(),
    eventType: Type.String(),
    productId: Type.String(),
    organizationId: Type.String(),
    eventDate: Type.String(),
    notificationIds: Type.Array(Type.String(), { description: 'One per subscription that hears the event' }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Sandbox: the payload element sent' })),
  },
  { description: 'Published: the event and its notifications are stored; deliveries start now' },
)
export type PublishedEvent = Static<typeof PublishedEvent>
