// Publishing events: the event and one notification per subscription that hears it are written in one transaction —
// the caller's, when it passes one (an outbox) — by the delivery module (delivery/outbox.ts). A subscription hears an
// event of its own organization, and with notificationScope DESCENDANTS (the default) the events of every
// organization below it; it must list the event's product and type.
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { DomainError, invalid, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { Jobs } from '../../platform/jobs/service.js'
import { INVOICING_PRODUCT, productOf } from '../catalog.js'
import type { DeliveryService, StoredEvent } from '../delivery/service.js'
import type { EventInput, EventPublisher, Published, SubscriptionStore } from '../types.js'

export interface EventsDeps {
  db: Executor
  clock: Clock
  jobs: Pick<Jobs, 'enqueue' | 'wake'>
  organizations: Pick<OrganizationService, 'lineage'>
  subscriptions: Pick<SubscriptionStore, 'ofOrganizations'>
  delivery: Pick<DeliveryService, 'writeEvent'>
}

export interface EventService extends EventPublisher {
  /**
   * Publishes every event in one transaction, all or nothing (an operator's file); returns the notifications written.
   * Deliveries start at the next poll of the servers on the database. A refused event throws EventRefused.
   */
  publishAll(inputs: readonly EventInput[]): Promise<number>
}

/** The event at `index` (from 0) was refused; nothing was published. */
export class EventRefused extends Error {
  constructor(
    readonly index: number,
    readonly refusal: DomainError,
  ) {
    super(`event ${index + 1}: ${refusal.message}`)
  }
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

export function createEventService(deps: EventsDeps): EventService {
  async function write(trx: Executor, input: EventInput): Promise<Published> {
    const productId = productOf(input.eventType)!
    const lineage = await deps.organizations.lineage(input.organizationId, trx)
    if (lineage.length === 0) throw notFound([{ field: 'organizationId', reason: 'no such organization' }])
    const candidates = await deps.subscriptions.ofOrganizations(trx, lineage)
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
    return { eventId: event.id, productId, eventDate: event.eventDate, notificationIds: await deps.delivery.writeEvent(trx, event, hearing, now) }
  }

  const checked = (input: EventInput) => {
    const details = checkEvent(input)
    if (details.length > 0) throw invalid(details)
    return input
  }

  return {
    async publish(input, executor) {
      if (executor) return write(executor, checked(input))
      const published = await deps.db.transaction().execute((trx) => write(trx, checked(input)))
      deps.jobs.wake()
      return published
    },
    async publishAll(inputs) {
      return deps.db.transaction().execute(async (trx) => {
        let count = 0
        for (const [index, input] of inputs.entries()) {
          try {
            count += (await write(trx, checked(input))).notificationIds.length
          } catch (err) {
            if (err instanceof DomainError) throw new EventRefused(index, err)
            throw err
          }
        }
        return count
      })
    },
    wake: () => deps.jobs.wake(),
  }
}
