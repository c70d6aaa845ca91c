// Publishing events: the event and one notification per subscription that hears it are written in one transaction —
// the caller's, when it passes one (an outbox) — with a delivery job for each notification of an active
// subscription. A subscription hears an event of its own organization, and with notificationScope DESCENDANTS (the
// default) the events of every organization below it; it must list the event's product and type. An inactive
// subscription's notification is kept (HELD) for a replay; a suspended one's (SUSPENDED) is sent when it resumes.
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import type { NotificationStatus } from '../../platform/db/schema.js'
import { invalid, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { Jobs } from '../../platform/jobs/service.js'
import { INVOICING_PRODUCT, productOf } from '../catalog.js'
import { enqueueDelivery } from '../delivery/jobs.js'
import * as deliveryRepo from '../delivery/repository.js'
import * as subscriptionsRepo from '../notification-subscriptions/repository.js'
import type { EventInput, EventPublisher, Published, Subscription } from '../types.js'

export interface EventsDeps {
  db: Executor
  clock: Clock
  jobs: Pick<Jobs, 'enqueue' | 'wake'>
  organizations: Pick<OrganizationService, 'lineage'>
}

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
  await deliveryRepo.insertEvent(trx, { id: event.id, organization_id: event.organizationId, product_id: event.productId, event_type: event.eventType, payload: JSON.stringify(event.payload), source: event.source, event_date: event.eventDate, created_at: now })
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
  await deliveryRepo.insertNotifications(trx, rows)
  if (jobs) for (const row of rows) if (row.status === 'PENDING') await enqueueDelivery(jobs, trx, { n: row.id, g: 0, b: 0, o: 0 })
  return rows.map((r) => r.id)
}

/** The payload element: the event's data, preferences and metadata, and the organization it happened in. */
export function payloadOf(input: Pick<EventInput, 'data' | 'preferences' | 'metadata' | 'organizationId'>): Record<string, unknown> {
  return {
    data: input.data ?? {},
    ...(input.preferences ? { preferences: input.preferences } : {}),
    organizationId: input.organizationId,
    ...(input.metadata ? { metadata: input.metadata } : {}),
  }
}

/** Problems with an event, each naming its member; the spec's invoicing `data` holds strings only. */
export function checkEvent(input: EventInput): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const product = productOf(input.eventType)
  if (!product) details.push({ field: 'eventType', reason: 'unknown event type (see GET /notification-subscriptions/v2/products/{organizationId})' })
  if (input.data !== undefined && (typeof input.data !== 'object' || input.data === null || Array.isArray(input.data))) details.push({ field: 'data', reason: 'must be an object' })
  else if (product === INVOICING_PRODUCT) {
    for (const [name, value] of Object.entries(input.data ?? {})) if (typeof value !== 'string') details.push({ field: `data.${name}`, reason: 'must be a string (invoicing data holds strings)' })
  }
  return details
}

export function createEventService(deps: EventsDeps): EventPublisher {
  async function write(trx: Executor, input: EventInput): Promise<Published> {
    const productId = productOf(input.eventType)!
    const lineage = await deps.organizations.lineage(input.organizationId, trx)
    if (lineage.length === 0) throw notFound([{ field: 'organizationId', reason: 'no such organization' }])
    const candidates = await subscriptionsRepo.ofOrganizations(trx, lineage)
    const hearing = candidates.filter(
      (s) => (s.organizationId === input.organizationId || s.notificationScope === 'DESCENDANTS') && s.products.some((p) => p.productId === productId && p.eventTypes.includes(input.eventType)),
    )
    const now = deps.clock.now().toISOString()
    const event: StoredEvent = {
      id: randomUUID(),
      organizationId: input.organizationId,
      productId,
      eventType: input.eventType,
      payload: payloadOf(input),
      source: input.source ?? 'api',
      eventDate: (input.eventDate ?? deps.clock.now()).toISOString(),
    }
    return { eventId: event.id, productId, eventDate: event.eventDate, notificationIds: await writeEvent(deps.jobs, trx, event, hearing, now) }
  }

  return {
    async publish(input, executor) {
      const details = checkEvent(input)
      if (details.length > 0) throw invalid(details)
      if (executor) return write(executor, input)
      const published = await deps.db.transaction().execute((trx) => write(trx, input))
      deps.jobs.wake()
      return published
    },
    wake: () => deps.jobs.wake(),
  }
}
