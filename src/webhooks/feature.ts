// Webhook notifications as one feature: signing keys (/kms/egress/v2), subscriptions and the test call
// (/notification-subscriptions/v1 and v2), replays (/webhooks/{id}/replays and /nrtf/v1/...), the event ingestion
// call and the delivery log (/webhooks/v1), the sandbox trigger (/sandbox/v1/events), the delivery and health-check
// jobs, and the pruning of old notifications. Its paths live under several prefixes, all behind the reporting gateway
// (HTTP Signature, JWT, OAuth bearer; the acting organization), answering in the reporting error family.
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import * as m0017 from '../migrations/0017_webhooks.js'
import * as m0018 from '../migrations/0018_webhook_certificates.js'
import { webhooksCommands } from './cli.js'
import type { Jobs } from '../platform/jobs/service.js'
import { createAddressGuard, createOutboundHttp, type LookupAll } from '../platform/outbound-http.js'
import type { MerchantApi } from '../merchant-api/feature.js'
import { reportingGateway } from '../merchant-api/gateway.js'
import { deliveryHandler, type DeliveryDeps } from './delivery/deliver.js'
import { DELIVER_KIND, DELIVERY_JOB_MAX_ATTEMPTS, HEALTH_CHECK_KIND } from './delivery/jobs.js'
import { createDeliveryDeps, createDeliveryService, healthCheckHandler } from './delivery/service.js'
import { SubscriptionSlots } from './delivery/slots.js'
import { ingestionRoutes, sandboxEventRoutes } from './events/routes.js'
import { createEventService, type EventService } from './events/service.js'
import { createSandboxTrigger, type SandboxTrigger } from './events/sandbox.js'
import { createWebhookCertificateService, type WebhookCertificateService } from './keys/certificates.js'
import { keyRoutes } from './keys/routes.js'
import { createWebhookKeyService, type WebhookKeyService } from './keys/service.js'
import { createSubscriptionReader } from './notification-subscriptions/reader.js'
import { subscriptionRoutes } from './notification-subscriptions/routes.js'
import { createSubscriptionStore, createWebhookSubscriptions, type WebhookSubscriptions } from './notification-subscriptions/service.js'
import { notificationRoutes } from './notifications/routes.js'
import { createNotificationLog, type NotificationLog } from './notifications/service.js'
import { replayRoutes } from './replays/routes.js'
import { createReplays, type Replays } from './replays/service.js'

export interface WebhooksServices {
  keys: WebhookKeyService
  /** Message-level encryption certificates (keys-asym): stored, not yet used. */
  certificates: WebhookCertificateService
  subscriptions: WebhookSubscriptions
  /** Publish an event (the report engine: reporting.report.completed / no-data / error; the operator's file). */
  events: EventService
  /** The delivery log (the CLI reads it). */
  notifications: NotificationLog
  /** Replays (the console's replay pages). */
  replays: Replays
  /** Sandbox: fire an event with sample data (the API's POST /sandbox/v1/events and the console's sandbox page). */
  sandboxTrigger: SandboxTrigger
}

export interface WebhooksDeps {
  db: Pick<Db, 'kysely' | 'dialect'>
  clock: Clock
  jobs: Pick<Jobs, 'enqueue' | 'wake' | 'completeAll'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'lineage'>
  /** The merchant API family's gateway and errors: webhook calls are authenticated and answered as reporting calls. */
  merchantApi: MerchantApi
  secretsKey: string
  settings: {
    mode: 'sandbox' | 'production'
    outboundTimeoutMs: number
    handlerTimeoutMs: number
    allowPrivateNetworks: boolean
    allowedNetworks: readonly string[]
  }
  /** Names this process in the delivery log. */
  worker: string
  onStatusChange: DeliveryDeps['onStatusChange']
  /** Tests: the jitter's random source, and a resolver (DNS rebinding). */
  random?: () => number
  lookup?: LookupAll
}

/** Attempts one process has on the wire at once (per subscription at most slots.PER_SUBSCRIPTION). */
export const DELIVERY_CONCURRENCY = 256
/** Deliveries started on one turn of the event loop: their first steps (about 0.1 ms each) delay a request by 3 ms at most. */
export const DELIVERY_STARTS_PER_TURN = 32
const RETENTION_MS = 31 * 86_400_000

const DESCRIPTION = `Webhook notifications (\`/notification-subscriptions\`, \`/kms/egress/v2\`, \`/webhooks\`): signed like
reporting calls (HTTP Signature), for your organization or one below it. Create a digital signature key, subscribe a URL to
products and event types, and receive each event as an HTTP POST signed twice with that key: \`V-C-signature:
t=<ms>;keyId=<id>;sig=<base64 HMAC-SHA256 of t.body>\` and the Standard Webhooks \`webhook-signature\` over
\`webhook-id.webhook-timestamp.body\`. Delivery is durable and at least once; failures are retried by the subscription's
retryPolicy.`

export function webhooksFeature(deps: WebhooksDeps): Feature<WebhooksServices> {
  const { clock, settings } = deps
  const db = deps.db.kysely
  const guardOptions = { allowPrivateNetworks: settings.allowPrivateNetworks, allowedNetworks: settings.allowedNetworks, ...(deps.lookup ? { lookup: deps.lookup } : {}) }
  const http = createOutboundHttp({ clock, timeoutMs: settings.outboundTimeoutMs, ...guardOptions })
  const keys = createWebhookKeyService({ db, clock, secretsKey: deps.secretsKey, organizations: deps.organizations })
  const certificates = createWebhookCertificateService({ db, clock, organizations: deps.organizations })
  const store = createSubscriptionStore(db)
  const deliveryDeps = createDeliveryDeps({
    db,
    parallelCommits: deps.db.dialect === 'postgres' ? 4 : 1,
    clock,
    jobs: deps.jobs,
    http,
    keys,
    subscriptions: createSubscriptionReader(db),
    store,
    slots: new SubscriptionSlots(clock),
    random: deps.random ?? Math.random,
    worker: deps.worker,
    userAgent: 'finapi-webhooks/1',
    onStatusChange: deps.onStatusChange,
  })
  const delivery = createDeliveryService(deliveryDeps)
  const subscriptions = createWebhookSubscriptions({
    db,
    clock,
    production: settings.mode === 'production',
    guard: createAddressGuard(guardOptions),
    organizations: deps.organizations,
    keys,
    delivery,
    testTimeoutMs: Math.max(100, Math.min(settings.outboundTimeoutMs, settings.handlerTimeoutMs - 1_000)),
  })
  const events = createEventService({ db, clock, jobs: deps.jobs, organizations: deps.organizations, subscriptions: store, delivery })
  const notifications = createNotificationLog({ delivery })
  const replays = createReplays({ delivery, clock })
  const sandboxTrigger = createSandboxTrigger({ events, clock })

  return {
    name: 'webhooks',
    services: { keys, certificates, subscriptions, events, notifications, replays, sandboxTrigger },
    http: {
      errors: deps.merchantApi.errors,
      // `/sandbox/v1`'s unknown paths belong to the reporting feature, which mounts the sandbox clock there.
      prefixes: ['/notification-subscriptions', '/kms/egress', '/nrtf', '/webhooks'],
      async register(scope) {
        scope.addHook('onClose', () => http.close())
        await scope.register(reportingGateway, deps.merchantApi.gateway)
        await subscriptionRoutes(scope, { subscriptions })
        await keyRoutes(scope, { keys, certificates })
        await replayRoutes(scope, { replays, subscriptions, clock })
        await notificationRoutes(scope, { notifications, subscriptions, organizations: deps.organizations })
        await ingestionRoutes(scope, { events })
        if (settings.mode === 'sandbox') await sandboxEventRoutes(scope, { sandboxTrigger })
      },
    },
    jobs: [
      {
        kind: DELIVER_KIND,
        handler: deliveryHandler(deliveryDeps) as never,
        // A claim outlives the attempt's deadline and a short wait for a per-subscription slot; a worker that dies
        // mid-attempt lets the job go after this.
        // Its jobs start by awaiting one load for those started together, then the network: a group shares a turn.
        options: { concurrency: DELIVERY_CONCURRENCY, startsPerTurn: DELIVERY_STARTS_PER_TURN, maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS, leaseMs: 2 * settings.outboundTimeoutMs + 5_000 },
      },
      { kind: HEALTH_CHECK_KIND, handler: healthCheckHandler(deliveryDeps) as never, options: { maxAttempts: 3, leaseMs: 2 * settings.outboundTimeoutMs + 5_000 } },
    ],
    housekeeping: [{ name: 'webhook notifications', prune: () => delivery.prune(new Date(clock.now().getTime() - RETENTION_MS).toISOString()) }],
    openapi: { description: DESCRIPTION },
    migrations: { '0017_webhooks': m0017, '0018_webhook_certificates': m0018 },
    commands: webhooksCommands,
  }
}
