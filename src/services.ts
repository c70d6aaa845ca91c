// The one composition root: builds every service from config and infrastructure, feature by feature, each from
// the narrowed dependencies it declares. The server, the CLI and the tests all call createServices; buildApp
// (app.ts) mounts what it returns. Nothing here starts a timer: the server starts the background work.
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { applicationsFeature } from './applications/feature.js'
import { SANDBOX_REPORTING_KEYS } from './applications/reporting-keys/sandbox.js'
import type { ReportingKeyService } from './applications/reporting-keys/service.js'
import type { ApplicationService } from './applications/service.js'
import { bankingFeature, type BankingServices, type V2Routes } from './banking/feature.js'
import type { Config } from './config.js'
import { identityFeature } from './identity/feature.js'
import { SANDBOX_MERCHANT_USERS, type MerchantUserService } from './identity/merchant-users/service.js'
import { SANDBOX_LOGINS } from './banking/sandbox-data.js'
import type { IdentityService } from './identity/service.js'
import type { AccessTokenResolver } from './identity/types.js'
import { oauthFeature, type OAuthServices } from './oauth/feature.js'
import { organizationsFeature } from './organizations/feature.js'
import type { OrganizationService } from './organizations/service.js'
import type { Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import type { Feature } from './platform/feature.js'
import type { JobHandler } from './platform/jobs/types.js'
import { createHousekeeping, type Housekeeping } from './platform/housekeeping.js'
import { createJobs, pruneDoneJobs, type Jobs } from './platform/jobs/service.js'
import { createMaintenanceSwitch, type MaintenanceSwitch } from './platform/maintenance.js'
import { createReplayGuard } from './platform/replay-guard.js'
import { merchantApiFeature } from './merchant-api/feature.js'
import { reportingFeature, type ReportingRoutes, type ReportingServices } from './reporting/feature.js'
import type { LookupAll } from './platform/outbound-http.js'
import { webhooksFeature, type WebhooksServices } from './webhooks/feature.js'
import { consoleFeature } from './console/feature.js'
import { createClientThrottle } from './oauth/clients/authenticate.js'
import { requestLogFeature, type RequestLogSettings } from './request-log/feature.js'
import type { RequestLogService } from './request-log/service.js'
import { publishReportEvent } from './webhooks/events/report-events.js'
import type { ReportFinishedHook } from './reporting/reports/generate.js'
import { createDatabaseBlobStore } from './platform/blobs/database-store.js'
import { createDirectoryBlobStore } from './platform/blobs/directory-store.js'
import type { BlobStore } from './platform/blobs/types.js'
import { dirname, join, resolve } from 'node:path'

export interface Infrastructure {
  db: Db
  clock: Clock
  logger: Logger
}

export interface Services {
  applications: ApplicationService
  maintenance: MaintenanceSwitch
  /** Customers, credentials, sessions; resolvePrincipal for every interface. */
  identity: IdentityService
  /** Customers of an organization who allow its partners' OAuth clients on the consent page. */
  merchantUsers: MerchantUserService
  banking: BankingServices
  oauth: OAuthServices
  /** Resellers → accounts → merchants; "may X act for Y". */
  organizations: OrganizationService
  /** HTTP Signature keys of organizations, secrets sealed. */
  reportingKeys: ReportingKeyService
  reporting: ReportingServices
  /** Webhook keys, subscriptions, event publishing (`webhooks.events.publish`) and deliveries. */
  webhooks: WebhooksServices
  /** Every API call, recorded in batches: an organization's calls for the console, one by correlation id. */
  requestLog: RequestLogService
  housekeeping: Housekeeping
  /** The one job runner: every feature's job kinds are registered with it; the server polls it. */
  jobs: Jobs
  /** Every feature's descriptor, in mounting order. */
  features: readonly Feature[]
}

export interface ServiceOptions {
  /** Registered in the banking scope, behind its gateway, after the banking routes; the tests' probe routes. */
  extraV2Routes?: readonly V2Routes[]
  /** Registered in the reporting scope, behind the merchant API gateway, after the reporting routes; the tests' probe routes. */
  extraReportingRoutes?: readonly ReportingRoutes[]
  /** Mounted after the built-in features; the tests mount probe API families this way. */
  extraFeatures?: readonly Feature[]
  /** Tests: the webhook retries' jitter source and the resolver webhook deliveries use. */
  webhooks?: { random?: () => number; lookup?: LookupAll }
  /** Told of every report that ends, inside the transaction recording it (the webhooks feature's hook). */
  onReportFinished?: ReportFinishedHook
  /** Tests: the request log's buffer bound and batch size. */
  requestLog?: Pick<RequestLogSettings, 'recorder'>
}

/**
 * Where report files go: a directory (beside the SQLite file by default) or the database, which every server on a
 * PostgreSQL database shares; `auto` picks the directory on SQLite and the database on PostgreSQL.
 */
export function reportStore(config: Config, db: Db, clock: Clock): BlobStore {
  const { store, storeDir } = config.reports
  if (store === 'database' || (store === 'auto' && db.dialect === 'postgres')) return createDatabaseBlobStore({ db, clock })
  const sqlitePath = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined
  const beside = sqlitePath && sqlitePath !== ':memory:' ? join(dirname(resolve(sqlitePath)), 'reports') : resolve('data', 'reports')
  return createDirectoryBlobStore(storeDir ? resolve(storeDir) : beside, { clock })
}

export function createServices(config: Config, infrastructure: Infrastructure, options: ServiceOptions = {}): Services {
  const { db, clock, logger } = infrastructure
  // The owner names this process in a job's lease, so two processes on one database never take each other's jobs.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const jobs = createJobs({ db, clock, owner, onError: (err, job) => logger.warn({ err, job }, 'job failed') })
  const maintenance = createMaintenanceSwitch({ db, clock, onError: (err) => logger.warn({ err }, 'maintenance poll failed') })
  // One memory of credentials already used, for OAuth's DPoP proofs and the reporting family's JWT ids and signed writes.
  const replay = createReplayGuard({ db: db.kysely, clock })

  // The one cycle of the wiring: identity resolves OAuth access tokens through OAuth's token service, and OAuth's
  // sign-in page verifies passwords through identity. Closed here by a resolver that forwards to OAuth once built.
  const accessTokens: AccessTokenResolver = {
    find: (hash) => oauth.services.tokens.find(hash),
    recall: (hash) => oauth.services.tokens.recall(hash),
    revoke: (hash) => oauth.services.tokens.revoke(hash),
  }
  const organizations = organizationsFeature({ db, clock })
  const applications = applicationsFeature({ db, clock, secretsKey: config.secretsKey, organizations: organizations.services, sandboxApiKey: config.sandboxApiKey })
  // In the sandbox everyone shares the published customers, so a guessing run locks them for its sender only.
  const identity = identityFeature({ db, clock, secretsKey: config.secretsKey, accessTokens, lockoutPerSource: config.mode === 'sandbox', organizations: organizations.services })
  const oauth = oauthFeature({
    db,
    clock,
    applications: applications.services.applications,
    identity: identity.services.identity,
    merchantUsers: identity.services.merchantUsers,
    organizations: organizations.services,
    secretsKey: config.secretsKey,
    publicUrl: config.publicUrl,
    limits: config.oauthLimits,
    sandboxSignIn: config.mode === 'sandbox' ? { banking: SANDBOX_LOGINS.usernamePassword, merchant: SANDBOX_MERCHANT_USERS[0] } : undefined,
    replay,
  })
  const banking = bankingFeature({
    db,
    clock,
    applications: applications.services.applications,
    maintenance,
    identity: identity.services.identity,
    // Banking never imports OAuth: it checks the proofs of DPoP-bound tokens through platform's verifier interface,
    // backed by OAuth's replay memory.
    dpop: oauth.services.dpop,
    settings: {
      lenientTokens: config.mode === 'sandbox' && !config.sandboxStrictTokens,
      rateLimitPerMinute: config.rateLimitPerMinute,
      throttlePerSource: config.mode === 'sandbox',
      publicUrl: config.publicUrl,
    },
    extraRoutes: options.extraV2Routes,
  })
  // The merchant API family's gateway resolves OAuth bearer tokens through the OAuth feature's token service, never
  // importing OAuth; reporting and webhooks both stand on it.
  // The docs page signs "Try it out" calls with the published sandbox keys; production ships neither script nor keys.
  const docsSigningKeys = config.mode === 'sandbox' ? SANDBOX_REPORTING_KEYS : undefined
  const merchantApi = merchantApiFeature({
    clock,
    keys: applications.services.reportingKeys,
    organizations: organizations.services,
    tokens: oauth.services.tokens,
    replay,
    docsSigningKeys,
    // In the sandbox everyone may sign with the published keys: a flood is counted against its sender's address.
    limits: { perMinute: config.merchantApiRateLimitPerMinute, perSource: config.mode === 'sandbox' },
  })
  const webhooks = webhooksFeature({
    db,
    clock,
    jobs,
    organizations: organizations.services,
    merchantApi: merchantApi.services,
    secretsKey: config.secretsKey,
    settings: {
      mode: config.mode,
      outboundTimeoutMs: config.outboundTimeoutMs,
      handlerTimeoutMs: config.handlerTimeoutMs,
      allowPrivateNetworks: config.outboundAllowPrivateNetworks,
      allowedNetworks: config.webhookAllowedNetworks,
    },
    worker: owner,
    onStatusChange: (change) => logger.info(change, 'webhook subscription status changed'),
    ...options.webhooks,
  })
  // One report store, read by the API's download and the console's.
  const reportBlobs = reportStore(config, db, clock)
  const reporting = reportingFeature({
    db: db.kysely,
    changes: db.changes,
    dialect: db.dialect,
    bulk: db.bulk,
    clock,
    merchantApi: merchantApi.services,
    organizations: organizations.services,
    jobs,
    blobs: reportBlobs,
    sandbox: config.mode === 'sandbox',
    reports: config.reports,
    // Webhooks publishes the engine's outcomes as its own events: the hook is how reporting tells it, without either
    // importing the other.
    onReportFinished: options.onReportFinished ?? ((event, tx) => publishReportEvent(webhooks.services.events, event, tx)),
    log: (fields, message) => logger.info(fields, message),
    extraRoutes: options.extraReportingRoutes,
  })
  const requestLog = requestLogFeature({
    db,
    databaseUrl: config.databaseUrl,
    clock,
    settings: { ...config.requestLog, ...options.requestLog },
    onError: (err) => logger.warn({ err }, 'request log write failed'),
    warn: (message) => logger.warn(message),
  })
  // The merchant console: the same services as the API; sign-in through identity behind the consent page's
  // throttle (OAuth's, built with the same limits).
  const consoleSite = consoleFeature({
    db,
    clock,
    secretsKey: config.secretsKey,
    settings: { idleMinutes: config.console.sessionIdleMinutes, maxHours: config.console.sessionMaxHours },
    identity: identity.services.identity,
    merchantUsers: identity.services.merchantUsers,
    organizations: organizations.services,
    throttle: createClientThrottle(config.oauthLimits.signInPerMinute, config.oauthLimits.signInPerClientPerMinute, clock),
    subscriptions: reporting.services.subscriptions,
    definitions: reporting.services.definitions,
    reports: reporting.services.reports,
    onDemand: reporting.services.onDemand,
    webhooks: webhooks.services,
    blobs: reportBlobs,
    sandboxSignIn: config.mode === 'sandbox' ? SANDBOX_MERCHANT_USERS[0] : undefined,
    reportingKeys: applications.services.reportingKeys,
    requestLog: requestLog.services,
    requestLogSettings: config.requestLog,
    operators: { organizations: organizations.services, merchantUsers: identity.services.merchantUsers, identity: identity.services.identity, reportingKeys: applications.services.reportingKeys, clients: oauth.services.clients },
    sandbox: config.mode === 'sandbox' ? { sandboxClock: reporting.services.sandboxClock, sandboxReset: reporting.services.sandboxReset, sandboxTrigger: webhooks.services.sandboxTrigger } : undefined,
  })
  // Every feature, in order: routes are mounted, sandbox data loaded (so after what it stands on) and commands listed
  // in this order; the merchant API family's after reporting keeps its counters where they were.
  const features: Feature[] = [organizations, applications, identity, banking, oauth, reporting, merchantApi, webhooks, requestLog, consoleSite, ...(options.extraFeatures ?? [])]

  for (const feature of features) for (const job of feature.jobs ?? []) jobs.register(job.kind, job.handler as JobHandler, job.options)

  const housekeeping = createHousekeeping({
    tasks: [
      ...features.flatMap((f) => f.housekeeping ?? []),
      { name: 'used credentials', prune: () => replay.prune() },
      { name: 'finished jobs', prune: () => pruneDoneJobs(db, clock) },
    ],
    clock,
    onPruned: (counts) => {
      if (Object.values(counts).some((n) => n > 0)) logger.info({ pruned: counts }, 'deleted expired rows')
    },
    onError: (err) => logger.warn({ err }, 'housekeeping failed'),
  })

  return {
    applications: applications.services.applications,
    maintenance,
    identity: identity.services.identity,
    merchantUsers: identity.services.merchantUsers,
    banking: banking.services,
    oauth: oauth.services,
    organizations: organizations.services,
    reportingKeys: applications.services.reportingKeys,
    reporting: reporting.services,
    webhooks: webhooks.services,
    requestLog: requestLog.services,
    housekeeping,
    jobs,
    features,
  }
}
