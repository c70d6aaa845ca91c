// Wire schemas of the delivery log, this project's own: notifications and their every attempt.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

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
