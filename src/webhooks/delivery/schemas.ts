// Wire schemas of the replay call (the real service's body, as the SDKs that had it modelled it: ReplayWebhooksRequest
// with byTransactionTraceIdentifiers or byDeliveryStatus), the test call's answer (InlineResponse2019) and the
// delivery log, this project's own.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

export const ReplayBody = Type.Object({
  byTransactionTraceIdentifiers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000, description: 'V-C-transaction-trace-id values of attempts: their notifications are sent again' })),
  byDeliveryStatus: Type.Optional(
    Type.Object({
      status: Type.Optional(Type.String({ maxLength: 16, description: 'FAILED or RETRY (the real service); HELD: notifications kept while the subscription was INACTIVE' })),
      startTime: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 (an offset, or UTC); with endTime at most 24 hours apart, within the last 30 days' })),
      endTime: Type.Optional(Type.String({ maxLength: 40 })),
      hoursBack: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 4 })], { description: 'Instead of startTime/endTime: the last n hours, 1 to 720' })),
      productId: Type.Optional(Type.String({ maxLength: 64 })),
      eventType: Type.Optional(Type.String({ maxLength: 128 })),
    }),
  ),
})
export type ReplayBody = Static<typeof ReplayBody>

export const ReplayAccepted = Type.Object(
  { submitTimeUtc: Type.String(), status: Type.String({ enum: ['ACCEPTED'] }), replayedNotifications: Type.Integer({ description: 'Notifications sent again, one attempt each, now' }) },
  { description: 'Accepted: the selected notifications are being sent again' },
)

export const TestNotification = Type.Object(
  {
    eventDate: Type.String(),
    eventType: Type.String(),
    organizationId: Type.String(),
    payloads: Type.Object({ testPayload: Type.Object({ message: Type.String() }) }),
    productId: Type.String(),
    requestType: Type.String(),
    retryNumber: Type.Integer(),
    transactionTraceId: Type.String(),
    webhookId: Type.String(),
    deliveryStatus: Type.String({ enum: ['DELIVERED', 'RETRY', 'FAILED'], description: 'This project’s addition: what the receiver made of it (RETRY: retried by the policy)' }),
    responseCode: Type.Optional(Type.Integer({ description: 'The receiver’s HTTP status, when it answered' })),
  },
  { description: 'The test notification, delivered and signed like any notification' },
)

const NOTIFICATION_STATUSES = ['PENDING', 'RETRY', 'DELIVERED', 'FAILED', 'SUSPENDED', 'HELD', 'CANCELLED']

const notificationFields = {
  notificationId: Type.String(),
  webhookId: Type.String(),
  organizationId: Type.String(),
  productId: Type.String(),
  eventType: Type.String(),
  status: Type.String({ enum: NOTIFICATION_STATUSES }),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  lastAttemptAt: Type.Optional(Type.String()),
  nextAttemptAt: Type.Optional(Type.String()),
  deliveredAt: Type.Optional(Type.String()),
}

export const NotificationSummary = Type.Object(notificationFields)
export type NotificationSummary = Static<typeof NotificationSummary>

export const Attempt = Type.Object({
  transactionTraceId: Type.String(),
  retryNumber: Type.Integer(),
  requestType: Type.String(),
  startedAt: Type.String(),
  durationMs: Type.Integer(),
  statusCode: Type.Optional(Type.Integer()),
  result: Type.String({ description: 'delivered, http_error, timeout, connection_failed, blocked_address, too_large, invalid_url or no_key' }),
  error: Type.Optional(Type.String()),
  responseExcerpt: Type.Optional(Type.String({ description: 'The first 256 bytes of the answer' })),
  keyId: Type.Optional(Type.String()),
  worker: Type.Optional(Type.String()),
})
export type Attempt = Static<typeof Attempt>

export const NotificationDetail = Type.Object({ ...notificationFields, attempts: Type.Integer(), deliveries: Type.Array(Attempt) })
export type NotificationDetail = Static<typeof NotificationDetail>

export const NotificationList = Type.Object({ notifications: Type.Array(NotificationSummary) })

export const LogQuery = Type.Object({
  organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN, description: 'Act for this organization: your own or one below it' })),
  webhookId: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.String({ enum: NOTIFICATION_STATUSES })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
})
export const NotificationParams = Type.Object({ notificationId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) })
