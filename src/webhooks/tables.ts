// Table types of the webhook feature (migrations 0017 and 0018).

/** A webhook signing key (SaveSymEgressKey): the key id subscribers look up, its secret sealed under SECRETS_KEY. */
export interface WebhookKeysTable {
  id: string
  organization_id: string
  key_type: string
  provider: string
  tenant: string
  client_key_id: string | null
  client_reference_code: string | null
  /** AES-256-GCM sealed base64 key; never selected into a response or a log line. */
  secret_sealed: string
  status: 'ACTIVE' | 'REVOKED'
  created_at: string
  expires_at: string
}

/** A subscriber's message-level encryption certificate (SaveAsymEgressKey): public material only. */
export interface WebhookCertificatesTable {
  id: string
  organization_id: string
  provider: string
  tenant: string
  key_type: string
  client_reference_code: string | null
  /** The X.509 certificate, PEM. */
  certificate: string
  /** SHA-256 of the certificate's DER, lowercase hex. */
  fingerprint: string
  not_after: string
  status: 'ACTIVE' | 'REVOKED'
  created_at: string
  /** The earlier of expiryDuration and the certificate's notAfter. */
  expires_at: string
}

export type WebhookStatus = 'ACTIVE' | 'INACTIVE' | 'SUSPENDED'

/** A webhook subscription; products, retry and security policies are JSON text. */
export interface WebhookSubscriptionsTable {
  id: string
  organization_id: string
  name: string | null
  description: string | null
  products: string
  webhook_url: string
  health_check_url: string | null
  retry_policy: string
  security_policy: string
  notification_scope: 'SELF' | 'DESCENDANTS'
  status: WebhookStatus
  /** Why the service changed the status itself (a 410, a suspension), for the operator. */
  status_reason: string | null
  created_at: string
  updated_at: string
}

/** Something that happened in an organization, as published: its payload element is JSON text. */
export interface WebhookEventsTable {
  id: string
  organization_id: string
  product_id: string
  event_type: string
  payload: string
  source: string
  event_date: string
  created_at: string
}

export type NotificationStatus = 'PENDING' | 'RETRY' | 'DELIVERED' | 'FAILED' | 'SUSPENDED' | 'HELD' | 'CANCELLED'

/** One event for one subscription; its deliveries are jobs, and each attempt a webhook_attempts row. */
export interface WebhookNotificationsTable {
  id: string
  event_id: string
  webhook_id: string
  /** The subscriber. */
  organization_id: string
  product_id: string
  event_type: string
  status: NotificationStatus
  /** Attempts made so far (the next one's retryNumber). */
  attempts: number
  /** Raised by a replay or a resumption: a delivery job of an older generation stands down. */
  generation: number
  next_attempt_at: string | null
  last_attempt_at: string | null
  delivered_at: string | null
  created_at: string
  updated_at: string
}

/** One HTTP attempt of a notification; the id is its V-C-transaction-trace-id. */
export interface WebhookAttemptsTable {
  id: string
  notification_id: string
  webhook_id: string
  retry_number: number
  request_type: 'NEW' | 'RETRY'
  key_id: string | null
  started_at: string
  duration_ms: number
  status_code: number | null
  result: string
  error: string | null
  /** The first bytes of the receiver's answer. */
  response_excerpt: string | null
  worker: string | null
}

/** The webhook feature's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface WebhooksTables {
  webhook_keys: WebhookKeysTable
  webhook_certificates: WebhookCertificatesTable
  webhook_subscriptions: WebhookSubscriptionsTable
  webhook_events: WebhookEventsTable
  webhook_notifications: WebhookNotificationsTable
  webhook_attempts: WebhookAttemptsTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    webhooks: WebhooksTables
  }
}
