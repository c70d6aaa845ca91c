// Webhook subscription rows; products and policies as JSON text. Callers check tenancy: a row is only ever shown,
// changed or deleted through an organization that may act for its owner.
import type { Executor } from '../../platform/db/database.js'
import type { WebhookSubscriptionsTable } from '../tables.js'
import type { Subscription, SubscriptionStatus } from '../types.js'

export type SubscriptionRow = WebhookSubscriptionsTable

export function toRow(s: Subscription): SubscriptionRow {
  return {
    id: s.id,
    organization_id: s.organizationId,
    name: s.name,
    description: s.description,
    products: JSON.stringify(s.products),
    webhook_url: s.webhookUrl,
    health_check_url: s.healthCheckUrl,
    retry_policy: JSON.stringify(s.retryPolicy),
    security_policy: JSON.stringify(s.securityPolicy),
    notification_scope: s.notificationScope,
    status: s.status,
    status_reason: s.statusReason,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  }
}

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    description: row.description,
    products: JSON.parse(row.products) as Subscription['products'],
    webhookUrl: row.webhook_url,
    healthCheckUrl: row.health_check_url,
    retryPolicy: JSON.parse(row.retry_policy) as Subscription['retryPolicy'],
    securityPolicy: JSON.parse(row.security_policy) as Subscription['securityPolicy'],
    notificationScope: row.notification_scope,
    status: row.status,
    statusReason: row.status_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export async function insert(db: Executor, s: Subscription): Promise<void> {
  await db.insertInto('webhook_subscriptions').values(toRow(s)).execute()
}

export async function find(db: Executor, id: string): Promise<Subscription | undefined> {
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toSubscription(row)
}

export async function listByOrganization(db: Executor, organizationId: string): Promise<Subscription[]> {
  const rows = await db.selectFrom('webhook_subscriptions').selectAll().where('organization_id', '=', organizationId).orderBy('created_at').orderBy('id').execute()
  return rows.map(toSubscription)
}

/** Subscriptions of any of these organizations (an event's lineage). */
export async function ofOrganizations(db: Executor, organizationIds: readonly string[]): Promise<Subscription[]> {
  if (organizationIds.length === 0) return []
  const rows = await db.selectFrom('webhook_subscriptions').selectAll().where('organization_id', 'in', organizationIds).execute()
  return rows.map(toSubscription)
}

/** Writes every column of the subscription (its id is kept). */
export async function replace(db: Executor, s: Subscription): Promise<void> {
  const { id: _id, created_at: _c, ...changes } = toRow(s)
  await db.updateTable('webhook_subscriptions').set(changes).where('id', '=', s.id).execute()
}

/** Moves the status from one of `from` to `to`; false when it was not in `from` (someone else moved it first). */
export async function moveStatus(db: Executor, id: string, from: readonly SubscriptionStatus[], to: SubscriptionStatus, reason: string | null, now: string): Promise<boolean> {
  const res = await db.updateTable('webhook_subscriptions').set({ status: to, status_reason: reason, updated_at: now }).where('id', '=', id).where('status', 'in', from).executeTakeFirst()
  return res.numUpdatedRows > 0n
}

export async function remove(db: Executor, id: string): Promise<boolean> {
  const res = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst()
  return Number(res.numDeletedRows) > 0
}
