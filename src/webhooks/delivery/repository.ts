// Notification, event and attempt rows. A notification is changed only by a delivery job of its current generation
// (a replay or a resumption raises the generation, and older jobs stand down), so two jobs never both own it.
import { sql } from 'kysely'
import type { Executor } from '../../platform/db/database.js'
import type { NotificationStatus, WebhookAttemptsTable, WebhookEventsTable, WebhookNotificationsTable } from '../tables.js'

export type NotificationRow = WebhookNotificationsTable
export type EventRow = WebhookEventsTable
export type AttemptRow = WebhookAttemptsTable

export interface DeliveryContext {
  notification: NotificationRow
  event: Pick<EventRow, 'organization_id' | 'product_id' | 'event_type' | 'payload' | 'event_date'>
}

export async function insertEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute()
}

export async function insertNotifications(db: Executor, rows: NotificationRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_notifications').values(rows).execute()
}

/** The notifications and their events, for the deliveries claimed together (one query). */
export async function loadForDelivery(db: Executor, notificationIds: readonly string[]): Promise<Map<string, DeliveryContext>> {
  const rows = await db
    .selectFrom('webhook_notifications as n')
    .innerJoin('webhook_events as e', 'e.id', 'n.event_id')
    .selectAll('n')
    .select(['e.organization_id as event_organization_id', 'e.product_id as event_product_id', 'e.event_type as event_event_type', 'e.payload as event_payload', 'e.event_date as event_date'])
    .where('n.id', 'in', notificationIds)
    .execute()
  const found = new Map<string, DeliveryContext>()
  for (const row of rows) {
    const { event_organization_id, event_product_id, event_event_type, event_payload, event_date, ...notification } = row
    found.set(notification.id, { notification, event: { organization_id: event_organization_id, product_id: event_product_id, event_type: event_event_type, payload: event_payload, event_date } })
  }
  return found
}

export async function insertAttempt(db: Executor, row: AttemptRow): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute()
}

export async function insertAttempts(db: Executor, rows: AttemptRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_attempts').values(rows).execute()
}

/** Many notifications DELIVERED in one statement, each only if still at its generation. */
export async function markDelivered(db: Executor, rows: { id: string; generation: number; attempts: number; lastAttemptAt: string }[], now: string): Promise<void> {
  if (rows.length === 0) return
  const values = sql.join(rows.map((r) => sql`(cast(${r.id} as text), cast(${r.generation} as integer), cast(${r.attempts} as integer), cast(${r.lastAttemptAt} as text))`))
  await sql`
    update webhook_notifications
    set status = 'DELIVERED', attempts = v.column3, last_attempt_at = v.column4, next_attempt_at = null, delivered_at = ${now}, updated_at = ${now}
    from (values ${values}) as v
    where webhook_notifications.id = v.column1 and webhook_notifications.generation = v.column2`.execute(db)
}

/** Applies `changes` if the notification is still at `generation`; false when a replay or resumption superseded it. */
export async function updateNotification(db: Executor, id: string, generation: number, changes: Partial<Omit<NotificationRow, 'id' | 'event_id'>>): Promise<boolean> {
  const res = await db.updateTable('webhook_notifications').set(changes).where('id', '=', id).where('generation', '=', generation).executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** Takes over a notification for a new delivery (replay, resumption): the next generation, PENDING or RETRY. */
export async function renew(db: Executor, n: Pick<NotificationRow, 'id' | 'generation' | 'attempts'>, now: string): Promise<boolean> {
  return updateNotification(db, n.id, n.generation, { generation: n.generation + 1, status: n.attempts === 0 ? 'PENDING' : 'RETRY', next_attempt_at: now, updated_at: now })
}

export function notificationsInStatus(db: Executor, webhookId: string, statuses: readonly NotificationStatus[]): Promise<Pick<NotificationRow, 'id' | 'generation' | 'attempts'>[]> {
  return db.selectFrom('webhook_notifications').select(['id', 'generation', 'attempts']).where('webhook_id', '=', webhookId).where('status', 'in', statuses).orderBy('created_at').orderBy('id').execute()
}

/** Notifications of the subscription with any attempt among these trace ids. */
export function notificationsByTraceIds(db: Executor, webhookId: string, traceIds: readonly string[]): Promise<Pick<NotificationRow, 'id' | 'generation' | 'attempts'>[]> {
  return db
    .selectFrom('webhook_notifications')
    .select(['id', 'generation', 'attempts'])
    .where('webhook_id', '=', webhookId)
    .where('id', 'in', (eb) => eb.selectFrom('webhook_attempts').select('notification_id').where('id', 'in', traceIds).where('webhook_id', '=', webhookId))
    .execute()
}

/** Notifications of the subscription among these ids. */
export function notificationsByIds(db: Executor, webhookId: string, ids: readonly string[]): Promise<Pick<NotificationRow, 'id' | 'generation' | 'attempts'>[]> {
  return db.selectFrom('webhook_notifications').select(['id', 'generation', 'attempts']).where('webhook_id', '=', webhookId).where('id', 'in', ids).execute()
}

export interface WindowSelection {
  webhookId: string
  statuses: readonly NotificationStatus[]
  from: string
  to: string
  productId?: string
  eventType?: string
}

export function notificationsInWindow(db: Executor, s: WindowSelection): Promise<Pick<NotificationRow, 'id' | 'generation' | 'attempts'>[]> {
  let q = db
    .selectFrom('webhook_notifications')
    .select(['id', 'generation', 'attempts'])
    .where('webhook_id', '=', s.webhookId)
    .where('status', 'in', s.statuses)
    .where('created_at', '>=', s.from)
    .where('created_at', '<=', s.to)
  if (s.productId) q = q.where('product_id', '=', s.productId)
  if (s.eventType) q = q.where('event_type', '=', s.eventType)
  return q.orderBy('created_at').orderBy('id').execute()
}

/** A deleted subscription's undelivered notifications end CANCELLED (their jobs then stand down). */
export async function cancelUndelivered(db: Executor, webhookId: string, now: string): Promise<number> {
  const res = await db
    .updateTable('webhook_notifications')
    .set((eb) => ({ status: 'CANCELLED', generation: eb('generation', '+', 1), next_attempt_at: null, updated_at: now }))
    .where('webhook_id', '=', webhookId)
    .where('status', 'in', ['PENDING', 'RETRY', 'SUSPENDED', 'HELD'])
    .executeTakeFirst()
  return Number(res.numUpdatedRows)
}

// ---- The delivery log ----------------------------------------------------------------------------------------

export interface LogFilter {
  /** The subscribers whose notifications to list; every subscriber's when absent (the operator's CLI). */
  organizationIds?: readonly string[]
  webhookId?: string
  status?: NotificationStatus
  eventType?: string
  /** Created at or after this instant (ISO 8601, UTC). */
  from?: string
  /** Created before this instant. */
  to?: string
  /** Keyset paging: only notifications after this one in the log's order (newest first). */
  after?: { createdAt: string; id: string }
  limit: number
}

export function listNotifications(db: Executor, f: LogFilter): Promise<NotificationRow[]> {
  let q = db.selectFrom('webhook_notifications').selectAll()
  if (f.organizationIds) q = q.where('organization_id', 'in', f.organizationIds)
  if (f.webhookId) q = q.where('webhook_id', '=', f.webhookId)
  if (f.status) q = q.where('status', '=', f.status)
  if (f.eventType) q = q.where('event_type', '=', f.eventType)
  if (f.from) q = q.where('created_at', '>=', f.from)
  if (f.to) q = q.where('created_at', '<', f.to)
  const after = f.after
  if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]))
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute()
}

export function findNotification(db: Executor, id: string): Promise<NotificationRow | undefined> {
  return db.selectFrom('webhook_notifications').selectAll().where('id', '=', id).executeTakeFirst()
}

export function attemptsOf(db: Executor, notificationId: string): Promise<AttemptRow[]> {
  return db.selectFrom('webhook_attempts').selectAll().where('notification_id', '=', notificationId).orderBy('started_at').orderBy('retry_number').execute()
}

/** The attempts of several notifications (a page of the log), in one query. */
export function attemptsOfMany(db: Executor, notificationIds: readonly string[]): Promise<AttemptRow[]> {
  if (notificationIds.length === 0) return Promise.resolve([])
  return db.selectFrom('webhook_attempts').selectAll().where('notification_id', 'in', notificationIds).orderBy('started_at').orderBy('retry_number').execute()
}

// ---- Housekeeping ----------------------------------------------------------------------------------------------

/** Deletes finished notifications (and their attempts) created before `before`, then events left without any. */
export async function pruneFinished(db: Executor, before: string): Promise<number> {
  const finished = (eb: Executor) =>
    eb.selectFrom('webhook_notifications').select('id').where('created_at', '<', before).where('status', 'in', ['DELIVERED', 'FAILED', 'CANCELLED'])
  await db.deleteFrom('webhook_attempts').where('notification_id', 'in', finished(db)).execute()
  const res = await db.deleteFrom('webhook_notifications').where('created_at', '<', before).where('status', 'in', ['DELIVERED', 'FAILED', 'CANCELLED']).executeTakeFirst()
  await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_notifications').select(sql`1`.as('one')).whereRef('webhook_notifications.event_id', '=', 'webhook_events.id'))))
    .execute()
  return Number(res.numDeletedRows)
}
