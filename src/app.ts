// The composition root: builds the whole HTTP application from config and infrastructure. The server entry
// and the test harness both call buildApp, so tests run the same app on a fresh database and a fake clock.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyInstance, type RawServerDefault } from 'fastify'
import type { Logger } from 'pino'
import { createApplicationService, type ApplicationService } from './applications/service.js'
import { createAccountsService, type AccountsService } from './banking/accounts-service.js'
import { createAuthService, type AuthService } from './banking/auth-service.js'
import { bankingRoutes } from './banking/routes.js'
import { SANDBOX_CUSTOMER_1_ID } from './banking/sandbox-data.js'
import type { Config } from './config.js'
import { createIdentityService, pruneSessions, type IdentityService } from './identity/service.js'
import { createAuthorizeService, pruneConsentsAndCodes, type AuthorizeService } from './oauth/authorize-service.js'
import { createClientService, type ClientService } from './oauth/clients-service.js'
import { oauthRoutes } from './oauth/routes.js'
import { OAUTH_SECURITY_SCHEMES } from './oauth/schemas.js'
import { createTokenService, pruneTokens, type TokenService } from './oauth/token-service.js'
import type { Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import { gateway, handleError as gatewayError } from './banking/gateway/plugin.js'
import { healthRoutes } from './platform/health.js'
import { createHousekeeping, type Housekeeping, type PruneTask } from './platform/housekeeping.js'
import { createMaintenanceSwitch, type MaintenanceSwitch } from './platform/maintenance.js'
import { lazyChildLogger } from './platform/logger.js'
import { MeteringLogController, RequestMetrics, metricsRoutes } from './platform/metrics.js'
import { openapiPlugin } from './platform/openapi.js'
import { validatorCompiler } from './platform/validation.js'

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

export interface Services {
  applications: ApplicationService
  maintenance: MaintenanceSwitch
  /** Customers, credentials, sessions; resolvePrincipal for every interface. */
  identity: IdentityService
  auth: AuthService
  accounts: AccountsService
  oauthClients: ClientService
  oauthAuthorize: AuthorizeService
  /** Also identity's AccessTokenResolver: OAuth access tokens become principals through identity. */
  oauthTokens: TokenService
  housekeeping: Housekeeping
}

/** Everything that expires and must be deleted some time after: run by each server and by `finapi prune`. */
export function pruneTasks(db: Pick<Db, 'kysely'>, clock: Clock): PruneTask[] {
  return [
    { name: 'sessions', prune: () => pruneSessions(db, clock) },
    { name: 'oauth consents and codes', prune: () => pruneConsentsAndCodes(db, clock) },
    { name: 'oauth tokens and grants', prune: () => pruneTokens(db, clock) },
  ]
}

/** The app as features see it: TypeBox schemas give each handler its types. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

/** A capability mounted under /v2, behind the gateway. */
export type V2Feature = (v2: App, services: Services) => Promise<void>

export interface AppDeps {
  config: Config
  db: Db
  clock: Clock
  logger: Logger
  /** How often each process re-reads shared switches such as maintenance. */
  settingsPollMs?: number
  /** Mounted after the built-in features; the tests use it to put probe routes behind the gateway. */
  extraV2Features?: V2Feature[]
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

// Accept a caller's correlation id only when it is a plain token, so it is safe to echo and to log.
const CORRELATION_ID = /^[\w.:-]{1,128}$/

function correlationId(req: IncomingMessage): string {
  for (const name of ['x-correlationid', 'x-svc-correlationid']) {
    const value = req.headers[name]
    if (typeof value === 'string' && CORRELATION_ID.test(value)) return value
  }
  return randomUUID()
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock, logger } = deps
  const metrics = new RequestMetrics()
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: correlationId,
    requestIdHeader: false,
    logController: new MeteringLogController(metrics, { requestIdLogLabel: 'correlationId' }),
    childLoggerFactory: (logger, bindings, options) => lazyChildLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: 30_000,
    // Long enough for any valid path parameter to reach schema validation, which names the field.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: (error, request, reply) => {
      reply.header('X-CorrelationID', request.id)
      if (request.url.startsWith('/v2/')) return gatewayError(error, request, reply)
      return (reply as FastifyReply).code(400).send({ statusCode: 400, error: 'Bad Request', message: error.message })
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)

  const applications = createApplicationService({ db, clock })
  const oauthClients = createClientService({ db, clock, applications })
  const oauthTokens = createTokenService({ db, clock, clients: oauthClients })
  // OAuth access tokens resolve to principals through identity, which never imports OAuth.
  const identity = createIdentityService({ db, clock, secretsKey: config.secretsKey, accessTokens: oauthTokens })
  const auth = createAuthService({
    identity,
    options: { lenientCustomerId: config.mode === 'sandbox' && !config.sandboxStrictTokens ? SANDBOX_CUSTOMER_1_ID : undefined },
  })
  const services: Services = {
    applications,
    maintenance: createMaintenanceSwitch({ db, clock, onError: (err) => logger.warn({ err }, 'maintenance poll failed') }),
    identity,
    auth,
    accounts: createAccountsService({ db }),
    oauthClients,
    oauthAuthorize: createAuthorizeService({ db, clock, clients: oauthClients, identity }),
    oauthTokens,
    housekeeping: createHousekeeping({
      tasks: pruneTasks(db, clock),
      onPruned: (counts) => {
        if (Object.values(counts).some((n) => n > 0)) logger.info({ pruned: counts }, 'deleted expired rows')
      },
      onError: (err) => logger.warn({ err }, 'housekeeping failed'),
    }),
  }
  await services.maintenance.refresh()
  services.maintenance.start(deps.settingsPollMs ?? 5_000)
  app.decorate('services', services)
  if (config.pruneIntervalMs > 0) services.housekeeping.start(config.pruneIntervalMs)
  app.addHook('onClose', async () => {
    services.maintenance.stop()
    services.housekeeping.stop()
  })

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-CorrelationID', request.id)
    done()
  })

  await metricsRoutes(app, metrics)
  await app.register(openapiPlugin, { version: VERSION, securitySchemes: OAUTH_SECURITY_SCHEMES })
  await app.register(healthRoutes, { db })
  await oauthRoutes(app, services)

  await app.register(
    async (v2) => {
      await v2.register(gateway, {
        applications: services.applications,
        maintenance: services.maintenance,
        rateLimitPerMinute: config.rateLimitPerMinute,
        clock,
      })
      await bankingRoutes(v2, services)
      for (const feature of deps.extraV2Features ?? []) await feature(v2, services)
    },
    { prefix: '/v2' },
  )

  return app
}
