// The reporting interface as one feature: its gateway (HTTP Signature, JWT and OAuth bearer tokens; the acting
// organization) and routes under /reporting/v3, answering in the reporting error family; its refusals counted on
// /metrics. The credentials it remembers (JWT ids, signatures of writes) go to the platform's replay guard. Built by the composition root from narrowed dependencies.
import type { ReportingKeyService } from '../applications/reporting-keys.js'
import type { AccessTokenResolver } from '../identity/types.js'
import type { OrganizationService } from '../organizations/service.js'
import type { BlobStore } from '../platform/blobs/types.js'
import type { Clock } from '../platform/clock.js'
import { LabelledCounter } from '../platform/counters.js'
import type { Dialect, Executor } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import type { App } from '../platform/http/app.js'
import type { Jobs } from '../platform/jobs/service.js'
import type { JobHandler } from '../platform/jobs/types.js'
import type { ReplayGuard } from '../platform/replay-guard.js'
import { createReportingAuthenticator, type ReportingAuthFailure } from './auth/authenticate.js'
import { createDefinitionsService, type DefinitionsService } from './definitions/service.js'
import { definitionRoutes } from './definitions/routes.js'
import { reportingErrors } from './errors.js'
import { reportingGateway, type ReportingGatewayOptions } from './gateway.js'
import { createReportGenerator, type ReportFinishedHook } from './reports/generate.js'
import { createReportMetrics } from './reports/metrics.js'
import { REPORT_JOB, type ReportJob } from './reports/queue.js'
import { countByStatus } from './reports/repository.js'
import { reportRoutes } from './reports/routes.js'
import { createReportsService, type ReportsService } from './reports/service.js'
import { createSandboxClock, type SandboxClock } from './scheduler/clock-routes.js'
import { createReportingClock, type ReportingClock } from './scheduler/clocks.js'
import { CATCH_UP_JOB, createScheduler, type Scheduler } from './scheduler/service.js'
import { onDemandRoutes } from './on-demand/routes.js'
import { createOnDemandService, type OnDemandService } from './on-demand/service.js'
import { subscriptionRoutes } from './subscriptions/routes.js'
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions/service.js'
import { createTransactionService } from './transactions/service/index.js'

export interface ReportingServices {
  definitions: DefinitionsService
  subscriptions: SubscriptionsService
  reports: ReportsService
  scheduler: Scheduler
  /** Each organization's reporting time (the sandbox lets one move its own ahead). */
  reportingClock: ReportingClock
  sandboxClock: SandboxClock
  /** The report job's handler, optionally telling `onProgress` how many rows are written (operator commands). */
  generator(onProgress?: (instanceId: string, rows: number) => void): JobHandler<ReportJob>
  /** The report job's options (its lease and attempts), for a runner built outside the server. */
  readonly reportJobOptions: { leaseMs: number; maxAttempts: number }
  /** The gateway's authenticator and refusal counters, shared with the sandbox's /sandbox/v1 scope. */
  readonly gateway: ReportingGatewayOptions
  onDemand: OnDemandService
}

/** Routes mounted under /reporting/v3 behind the reporting gateway, beside the reporting routes (tests' probes). */
export type ReportingRoutes = (scope: App) => Promise<void>

export interface ReportingDeps {
  db: Executor
  dialect: Dialect
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'descendants'>
  /** OAuth access tokens, resolved by the OAuth feature's token service (reporting never imports OAuth). */
  tokens: Pick<AccessTokenResolver, 'find'>
  jobs: Pick<Jobs, 'enqueue'>
  /** The one memory of credentials already used (JWT ids, signatures of writes), pruned by the composition root. */
  replay: Pick<ReplayGuard, 'spend'>
  /** Where report files go (gzip-compressed). */
  blobs: BlobStore
  sandbox: boolean
  reports: {
    maxWindowDays: number
    retentionDays: number
    leaseMs: number
    /** Per-organization limits (config.ts explains the defaults): subscriptions, the shortest USER_DEFINED interval, reports in flight. */
    maxSubscriptions: number
    minIntervalMinutes: number
    maxQueued: number
  }
  /**
   * Told of every report that ends (COMPLETED, NO_DATA, ERROR) inside the transaction that records it, with that
   * transaction: the webhooks feature writes its outbox row there. The same event is in report_events either way.
   */
  onReportFinished?: ReportFinishedHook
  /** Where each finished report is logged (info). */
  log?: (fields: Record<string, unknown>, message: string) => void
  extraRoutes?: readonly ReportingRoutes[]
}

/** Attempts of one report before it ends in ERROR (the job's backoff between them: e^n seconds). */
const REPORT_ATTEMPTS = 5

const DESCRIPTION = `Merchant reporting interface (\`/reporting/v3\`). Every call authenticates in one of three ways, as the
official CyberSource SDKs do (authenticationType \`http_signature\`, \`jwt\`, \`oauth\`):

- **HTTP Signature** (HmacSHA256): headers \`v-c-merchant-id\`, \`date\` (RFC 7231, within 5 minutes), \`host\`, \`digest\`
  (\`SHA-256=<base64>\` of the raw body, POST/PUT/PATCH) and \`signature: keyid="…", algorithm="HmacSHA256",
  headers="host date request-target [digest] v-c-merchant-id", signature="…"\`. A key of a parent organization signs for
  a merchant below it (meta key: the portfolio id is signed, the merchant is sent).
- **JWT**: \`Authorization: Bearer <JWS>\`, RS256 under a registered certificate's key (kid: its subject serialNumber) or
  HS256 under a reporting key's secret (kid: the key id); claims iat/exp (5 minutes' skew), a jti used once, iss,
  v-c-merchant-id, request-method, request-resource-path, request-host, and digest + digest-algorithm for bodies.
- **OAuth 2.0**: \`Authorization: Bearer <access token>\` from \`/oauth2/v3/token\` with scope \`reporting\`, acting for its
  client's organization (client_credentials) or the merchant user's who allowed it (authorization_code).

\`organizationId\` acts for the caller's own organization or one below it. Any authentication failure answers 401
\`{"response":{"rmsg":"Authentication Failed"}}\`.`

export function reportingFeature(deps: ReportingDeps): Feature<ReportingServices> {
  const { db, clock, jobs, blobs } = deps
  const definitions = createDefinitionsService()
  const subscriptions = createSubscriptionsService({ db, clock, definitions, limits: deps.reports })
  const failures = new LabelledCounter<ReportingAuthFailure>('reporting_authentication_failures_total', 'Reporting calls refused as unauthenticated, by reason', 'reason')
  const authenticator = createReportingAuthenticator({
    keys: deps.keys,
    organizations: deps.organizations,
    tokens: deps.tokens,
    replay: deps.replay,
    clock: deps.clock,
  })
  const onDemand = createOnDemandService({ db: deps.db, organizations: deps.organizations })
  const gateway: ReportingGatewayOptions = { authenticator, organizations: deps.organizations, failures }
  const transactions = createTransactionService({ db: { kysely: db, dialect: deps.dialect }, clock })
  const reportingClock = createReportingClock({ db, clock, sandbox: deps.sandbox })
  const reports = createReportsService({ db, clock, jobs, definitions, reportingClock, blobs, limits: deps.reports })
  const scheduler = createScheduler({ db, clock, jobs, reportingClock, maxQueued: deps.reports.maxQueued })
  const sandboxClock = createSandboxClock({ reportingClock, scheduler })
  const metrics = createReportMetrics(() => countByStatus(db))
  const reportJobOptions = { leaseMs: deps.reports.leaseMs, maxAttempts: REPORT_ATTEMPTS }
  const generator = (onProgress?: (instanceId: string, rows: number) => void) =>
    createReportGenerator({ db, clock, blobs, transactions, definitions, reportingClock, sandbox: deps.sandbox, leaseMs: deps.reports.leaseMs, metrics, onReportFinished: deps.onReportFinished, log: deps.log, onProgress })
  return {
    name: 'reporting',
    services: { definitions, subscriptions, reports, scheduler, reportingClock, sandboxClock, generator, reportJobOptions, gateway, onDemand },
    jobs: [
      { kind: REPORT_JOB, handler: generator() as never, options: reportJobOptions },
      // One slice at a time per process: catch-ups of several organizations take turns through the queue.
      { kind: CATCH_UP_JOB, handler: scheduler.catchUpHandler as never, options: { concurrency: 1 } },
    ],
    background: [{ name: 'report scheduler', run: () => scheduler.sweep() }],
    housekeeping: [
      { name: 'expired reports', prune: () => reports.prune(deps.reports.retentionDays) },
      // A generation killed mid-file leaves its temp file: removed once no live write can own it, from start on.
      { name: 'report temp files', atStart: true, prune: () => blobs.sweep() },
    ],
    metrics: metrics.registry,
    counters: [failures],
    http: {
      prefix: '/reporting/v3',
      errors: reportingErrors(deps.clock),
      async register(scope) {
        await scope.register(reportingGateway, gateway)
        await definitionRoutes(scope, { definitions })
        await subscriptionRoutes(scope, { subscriptions })
        await reportRoutes(scope, { reports, blobs })
        await onDemandRoutes(scope, { onDemand })
        for (const routes of deps.extraRoutes ?? []) await routes(scope)
      },
    },
    openapi: {
      description: DESCRIPTION,
      securitySchemes: {
        httpSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'signature',
          description: 'HTTP Signature (HmacSHA256) over host, date, request-target, digest and v-c-merchant-id, under a reporting key (finapi keys create --org)',
        },
        jwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The SDK\'s JWT: RS256 under a certificate registered with finapi keys create --org --jwt-cert, or HS256 under a reporting key\'s shared secret',
        },
      },
    },
  }
}
