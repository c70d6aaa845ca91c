// The webhook feature's domain shapes, shared by its parts (subscriptions, events, delivery) and by the features
// that publish events through it (the report engine), and the doors its parts use one another through: types only,
// so importing it costs nothing.
import type { Executor } from '../platform/db/database.js'
import type { RetryPolicy } from './delivery/retry-policy.js'

export type { RetryPolicy }
export type NotificationScope = 'SELF' | 'DESCENDANTS'
export type SubscriptionStatus = 'ACTIVE' | 'INACTIVE' | 'SUSPENDED'

export interface ProductSubscription {
  productId: string
  eventTypes: string[]
}

export interface SecurityPolicy {
  /** `key` (the SDK's spelling) or `KEY` (the developer guide's), kept as given. */
  securityType: string
  config?: {
    oAuthURL?: string
    oAuthTokenType?: string
    additionalConfig?: { aud?: string; clientId?: string; keyId?: string; scope?: string }
  }
}

export interface Subscription {
  id: string
  organizationId: string
  name: string | null
  description: string | null
  products: ProductSubscription[]
  webhookUrl: string
  healthCheckUrl: string | null
  retryPolicy: RetryPolicy
  securityPolicy: SecurityPolicy
  notificationScope: NotificationScope
  status: SubscriptionStatus
  statusReason: string | null
  createdAt: string
  updatedAt: string
}

/** An event to publish: what happened, in which organization. */
export interface EventInput {
  eventType: string
  /** Where it happened: subscriptions of this organization, and DESCENDANTS subscriptions above it, hear it. */
  organizationId: string
  /** The payload element's `data` (for invoicing events, the invoice e-mail's fields, all strings). */
  data?: Record<string, unknown>
  preferences?: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** When it happened (default now). */
  eventDate?: Date
  /** Who published it, for the delivery log: `api`, `cli`, `sandbox`, `report-engine`… */
  source?: string
}

export interface Published {
  eventId: string
  productId: string
  eventDate: string
  /** One per subscription that hears the event (an inactive one's is kept, HELD). */
  notificationIds: string[]
}

/**
 * What another feature needs to publish events (the report engine: report completed, no data, error). With
 * `executor` the event and its deliveries are written in the caller's transaction (an outbox): they exist exactly
 * when the caller's work commits; deliveries then start at the next poll, or at once after `wake()`.
 */
export interface EventPublisher {
  publish(event: EventInput, executor?: Executor): Promise<Published>
  wake(): void
}

/**
 * What delivery and event publishing need of the subscriptions (notification-subscriptions/service.ts gives it):
 * reads, and the status moves a delivery makes inside its own transaction.
 */
export interface SubscriptionStore {
  find(id: string, db?: Executor): Promise<Subscription | undefined>
  /** Subscriptions of any of these organizations (an event's lineage). */
  ofOrganizations(db: Executor, organizationIds: readonly string[]): Promise<Subscription[]>
  /** Moves the status from one of `from` to `to`; false when it was not in `from` (someone else moved it first). */
  moveStatus(db: Executor, id: string, from: readonly SubscriptionStatus[], to: SubscriptionStatus, reason: string | null, now: string): Promise<boolean>
}

/** Subscriptions as the delivery path reads them, remembered a second (notification-subscriptions/reader.ts). */
export interface SubscriptionReader {
  find(id: string): Promise<Subscription | undefined>
  forget(id: string): void
}
