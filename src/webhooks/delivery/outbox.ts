// An event and its notifications, written in the caller's transaction (an outbox): one notification per subscription
// that hears it, with a delivery job for each that can be sent now, so they exist exactly when the caller's work
// commits. An inactive subscription's notification is kept (HELD) for a replay; a suspended one's (SUSPENDED) is sent
// when it resumes.
import { randomUUID } from 'node:crypto'
import type { Executor } from '../../platform/db/database.js'
import type { NotificationStatus } from '../tables.js'
import type { Jobs } from '../../platform/jobs/service.js'
import type { Subscription } from '../types.js'
import { enqueueDelivery } from './jobs.js'
import * as repo from './repository.js'

export interface StoredEvent {
  id: string
  organizationId: string
  productId: string
  eventType: string
  /** The payload element every notification of the event carries. */
  payload: Record<string, unknown>
  source: string
  eventDate: string
}

/** The notification status a new notification of this subscription starts in. */
const startStatus = (s: Subscription): NotificationStatus => (s.status === 'ACTIVE' ? 'PENDING' : s.status === 'SUSPENDED' ? 'SUSPENDED' : 'HELD')

/**
 * Writes the event and a notification for each subscription given, with a delivery job for each that can be sent
 * now (none when `jobs` is undefined: the caller attempts it itself).
 */
export async function writeEvent(jobs: Pick<Jobs, 'enqueue'> | undefined, trx: Executor, event: StoredEvent, subscribers: readonly Subscription[], now: string): Promise<string[]> {
  await repo.insertEvent(trx, { id: event.id, organization_id: event.organizationId, product_id: event.productId, event_type: event.eventType, payload: JSON.stringify(event.payload), source: event.source, event_date: event.eventDate, created_at: now })
  const rows = subscribers.map((s) => ({
    id: randomUUID(),
    event_id: event.id,
    webhook_id: s.id,
    organization_id: s.organizationId,
    product_id: event.productId,
    event_type: event.eventType,
    status: startStatus(s),
    attempts: 0,
    generation: 0,
    next_attempt_at: s.status === 'ACTIVE' ? now : null,
    last_attempt_at: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  }))
  await repo.insertNotifications(trx, rows)
  if (jobs) for (const row of rows) if (row.status === 'PENDING') await enqueueDelivery(jobs, trx, { n: row.id, g: 0, b: 0, o: 0 })
  return rows.map((r) => r.id)
}
