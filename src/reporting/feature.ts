// The reporting interface as one feature: its routes under /reporting/v3 (and the sandbox clock's under
// /sandbox/v1), behind the merchant API family's gateway and answering in its errors; the report engine's job, its
// scheduler's sweep, the pruning of expired reports and the report metrics; its tables, the sandbox's transactions
// and its commands. Built by the composition root from narrowed dependencies.
import type { OrganizationService } from '../organizations/service.js'
import type { BlobStore } from '../platform/blobs/types.js'
import type { Clock } from '../platform/clock.js'
import type { BulkReads, Dialect, Executor } from '../platform/db/database.js'
import type { ChangeSignal } from '../platform/db/changes.js'
import type { Feature } from '../platform/feature.js'
import * as m0009 from '../migrations/0009_transactions.js'
import * as m0013 from '../migrations/0013_report_subscriptions.js'
import * as m0015 from '../migrations/0015_transaction_tallies.js'
import * as m0016 from '../migrations/0016_report_engine.js'
import * as m0030 from '../migrations/0030_report_subscription_changes.js'
import * as m0032 from '../migrations/0032_report_instance_changes.js'
import { reportingCommands } from './cli.js'
import type { App } from '../platform/http/app.js'
import type { Jobs } from '../platform/jobs/service.js'
import type { JobHandler } from '../platform/jobs/types.js'
import { createDefinitionsService, type DefinitionsService } from './report-definitions/service.js'
import { definitionRoutes } from './report-definitions/routes.js'
import type { MerchantApi } from '../merchant-api/feature.js'
import { reportingGateway } from '../merchant-api/gateway.js'
import { createReportGenerator, type ReportFinishedHook } from './reports/generate.js'
import { createReportMetrics } from './reports/metrics.js'
import { REPORT_JOB, type ReportJob } from './reports/queue.js'
import { reportRoutes } from './reports/routes.js'
import { createReportsService, type ReportsService } from './reports/service.js'
import { reportDownloadRoutes } from './report-downloads/routes.js'
import { createReportDownloads } from './report-downloads/service.js'
import { clockRoutes } from './sandbox-clock/routes.js'
import { createSandboxClock, type SandboxClock } from './sandbox-clock/service.js'
import { createSandboxReset, type SandboxReset } from './sandbox-reset/service.js'
import { createReportingClock, type ReportingClock } from './clocks/service.js'
import { CATCH_UP_JOB, createScheduler, type Scheduler } from './scheduler/service.js'
import { onDemandRoutes } from './on-demand/routes.js'
import { createOnDemandService, type OnDemandService } from './on-demand/service.js'
import { subscriptionRoutes } from './report-subscriptions/routes.js'
import { createSubscriptionsService, type SubscriptionsService } from './report-subscriptions/service.js'
import { createTransactionService, type TransactionService } from './transactions/service.js'

export interface ReportingServices {
  definitions: DefinitionsService
  subscriptions: SubscriptionsService
  reports: ReportsService
  scheduler: Scheduler
  /** Each organization's reporting time (the sandbox lets one move its own ahead). */
  reportingClock: ReportingClock
  sandboxClock: SandboxClock
  /** Sandbox: an organization's reporting data back to the seeded state (the console's sandbox page). */
  sandboxReset: SandboxReset
  /** The report job's handler, optionally telling `onProgress` how many rows are written (operator commands). */
  generator(onProgress?: (instanceId: string, rows: number) => void): JobHandler<ReportJob>
  /** The report job's options (its lease and attempts), for a runner built outside the server. */
  readonly reportJobOptions: { leaseMs: number; maxAttempts: number }
  /** The transactions store the reports read (and the sandbox's generated data). */
  transactions: TransactionService
  onDemand: OnDemandService
  /** Whether an organization exists (`finapi transactions generate` refuses one that does not). */
  organizationExists(id: string): Promise<boolean>
}

/** Routes registered in the reporting scope, behind its gateway, beside the reporting routes (tests' probes, whole paths under /reporting/v3). */
export type ReportingRoutes = (scope: App) => Promise<void>

export interface ReportingDeps {
  db: Executor
  /** Whether another process changed what this one remembers (the subscription lists). */
  changes: ChangeSignal
  dialect: Dialect
  /** The database's bulk reads, for report rows. */
  bulk: BulkReads
  clock: Clock
  organizations: Pick<OrganizationService, 'find' | 'descendants'>
  /** The merchant API family's gateway and errors, which reporting shares with webhooks. */
  merchantApi: MerchantApi
  jobs: Pick<Jobs, 'enqueue'>
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
  const subscriptions = createSubscriptionsService({ db, changes: deps.changes, clock, definitions, limits: deps.reports })
  const onDemand = createOnDemandService({ db: deps.db, dialect: deps.dialect, organizations: deps.organizations })
  const transactions = createTransactionService({ db: { kysely: db, dialect: deps.dialect, bulk: deps.bulk }, clock })
  const reportingClock = createReportingClock({ db, clock, sandbox: deps.sandbox })
  const reports = createReportsService({ db, changes: deps.changes, clock, jobs, definitions, reportingClock, blobs, limits: deps.reports })
  const scheduler = createScheduler({ db, clock, jobs, reports, reportingClock, maxQueued: deps.reports.maxQueued })
  const downloads = createReportDownloads({ reports })
  const sandboxClock = createSandboxClock({ reportingClock, scheduler })
  const sandboxReset = createSandboxReset({ db, blobs, sandbox: deps.sandbox })
  const metrics = createReportMetrics(() => reports.countByStatus())
  const reportJobOptions = { leaseMs: deps.reports.leaseMs, maxAttempts: REPORT_ATTEMPTS }
  const generator = (onProgress?: (instanceId: string, rows: number) => void) =>
    createReportGenerator({ db, clock, blobs, transactions, definitions, reportingClock, sandbox: deps.sandbox, leaseMs: deps.reports.leaseMs, metrics, onReportFinished: deps.onReportFinished, log: deps.log, onProgress })
  return {
    name: 'reporting',
    services: {
      definitions,
      subscriptions,
      reports,
      scheduler,
      reportingClock,
      sandboxClock,
      sandboxReset,
      generator,
      reportJobOptions,
      onDemand,
      transactions,
      organizationExists: async (id) => (await deps.organizations.find(id)) !== undefined,
    },
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
    http: {
      // The sandbox's clock is a reporting call under a prefix of its own.
      prefixes: ['/reporting/v3', ...(deps.sandbox ? ['/sandbox/v1'] : [])],
      errors: deps.merchantApi.errors,
      async register(scope) {
        await scope.register(reportingGateway, deps.merchantApi.gateway)
        await definitionRoutes(scope, { definitions })
        await subscriptionRoutes(scope, { subscriptions })
        await reportRoutes(scope, { reports })
        await reportDownloadRoutes(scope, { downloads, blobs })
        await onDemandRoutes(scope, { onDemand })
        for (const routes of deps.extraRoutes ?? []) await routes(scope)
        if (deps.sandbox) await clockRoutes(scope, { sandboxClock })
      },
    },
    openapi: { description: DESCRIPTION },
    migrations: { '0009_transactions': m0009, '0013_report_subscriptions': m0013, '0015_transaction_tallies': m0015, '0016_report_engine': m0016, '0030_report_subscription_changes': m0030, '0032_report_instance_changes': m0032 },
    // Every sandbox merchant's reports have 90 days of transactions ending today (on the injected clock), once.
    sandbox: { seed: async () => void (await transactions.ensureSandboxData()) },
    commands: reportingCommands,
  }
}
