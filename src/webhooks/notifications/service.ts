// The delivery log: notifications, newest first, and a notification with its every attempt, read through the
// delivery module.
import { notFound } from '../../platform/errors.js'
import type { AttemptRow, DeliveryService, LogFilter, NotificationRow } from '../delivery/service.js'
import type { Attempt, NotificationDetail, NotificationSummary } from './schemas.js'

export interface NotificationLog {
  list(filter: LogFilter): Promise<NotificationSummary[]>
  /** A page of the log, each notification with its every attempt (two queries; the console's delivery log). */
  listWithAttempts(filter: LogFilter): Promise<NotificationDetail[]>
  /** A notification with its every attempt; notFound() unless `mayRead` allows its subscriber. */
  detail(id: string, mayRead: (organizationId: string) => Promise<boolean>): Promise<NotificationDetail>
}

function toSummary(n: NotificationRow): NotificationSummary {
  return {
    notificationId: n.id,
    webhookId: n.webhook_id,
    organizationId: n.organization_id,
    productId: n.product_id,
    eventType: n.event_type,
    status: n.status,
    attempts: n.attempts,
    createdAt: n.created_at,
    ...(n.last_attempt_at ? { lastAttemptAt: n.last_attempt_at } : {}),
    ...(n.next_attempt_at && (n.status === 'PENDING' || n.status === 'RETRY') ? { nextAttemptAt: n.next_attempt_at } : {}),
    ...(n.delivered_at ? { deliveredAt: n.delivered_at } : {}),
  }
}

function toAttempt(a: AttemptRow): Attempt {
  return {
    transactionTraceId: a.id,
    retryNumber: a.retry_number,
    requestType: a.request_type,
    startedAt: a.started_at,
    durationMs: a.duration_ms,
    ...(a.status_code === null ? {} : { statusCode: a.status_code }),
    result: a.result,
    ...(a.error === null ? {} : { error: a.error }),
    ...(a.response_excerpt === null ? {} : { responseExcerpt: a.response_excerpt }),
    ...(a.key_id === null ? {} : { keyId: a.key_id }),
    ...(a.worker === null ? {} : { worker: a.worker }),
  }
}

async function notificationDetail(delivery: Pick<DeliveryService, 'notification' | 'attempts'>, id: string, mayRead: (organizationId: string) => Promise<boolean>): Promise<NotificationDetail> {
  const n = await delivery.notification(id)
  if (!n || !(await mayRead(n.organization_id))) throw notFound([{ field: 'notificationId', reason: 'no such notification' }])
  return { ...toSummary(n), deliveries: (await delivery.attempts(id)).map(toAttempt) }
}

async function withAttempts(delivery: Pick<DeliveryService, 'notifications' | 'attemptsOfMany'>, filter: LogFilter): Promise<NotificationDetail[]> {
  const rows = await delivery.notifications(filter)
  const byNotification = new Map<string, Attempt[]>()
  for (const a of await delivery.attemptsOfMany(rows.map((n) => n.id))) {
    const list = byNotification.get(a.notification_id) ?? []
    list.push(toAttempt(a))
    byNotification.set(a.notification_id, list)
  }
  return rows.map((n) => ({ ...toSummary(n), deliveries: byNotification.get(n.id) ?? [] }))
}

export function createNotificationLog(deps: { delivery: Pick<DeliveryService, 'notifications' | 'notification' | 'attempts' | 'attemptsOfMany'> }): NotificationLog {
  return {
    list: async (filter) => (await deps.delivery.notifications(filter)).map(toSummary),
    listWithAttempts: (filter) => withAttempts(deps.delivery, filter),
    detail: (id, mayRead) => notificationDetail(deps.delivery, id, mayRead),
  }
}
