// Builds the HTTP application from config, infrastructure and the services of the composition root
// (services.ts): the platform's own routes (health, metrics, documents), then each feature's routes, each API
// family in its own scope with its own error contract. The server entry and the test harness both call buildApp,
// so tests run the same app on a fresh database and a fake clock.
import { readFileSync } from 'node:fs'
import Fastify, { type FastifyBaseLogger, type FastifyReply, type RouteOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import { healthRoutes } from './platform/health.js'
import { homeRoutes } from './platform/home.js'
import type { App } from './platform/http/app.js'
import { correlationId } from './platform/http/correlation.js'
import './platform/http/caller.js'
import { bodyRateGuard, guardBodies } from './platform/http/body-rate.js'
import { clientErrorHandler, connectHandler, expectationHandler, rememberRequestStarts } from './platform/http/client-errors.js'
import { createRequestDeadlines } from './platform/http/deadlines.js'
import { answerUnknownPaths, checkFamily, FamilyTable, frameworkErrorHandler, platformErrors, useErrorFamily } from './platform/http/error-family.js'
import { invalid } from './platform/errors.js'
import { lazyChildLogger } from './platform/logger.js'
import { MeteringLogController, RequestMetrics, metricsRoutes } from './platform/metrics.js'
import { openapiPlugin } from './platform/openapi.js'
import { periodic } from './platform/timers.js'
import { refuseNul, validatorCompiler } from './platform/validation.js'
import { SANDBOX_LOGINS } from './banking/sandbox-data.js'
import { SANDBOX_MERCHANT_USERS } from './identity/merchant-users/service.js'
import { SANDBOX_REPORTING_KEYS } from './applications/reporting-keys/sandbox.js'
import { createServices, type Infrastructure, type ServiceOptions, type Services } from './services.js'

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

export type { App }

export interface AppDeps extends Infrastructure, ServiceOptions {
  config: Config
  /** Built from config and infrastructure when not given. */
  services?: Services
  /** How often each process re-reads shared switches such as maintenance. */
  settingsPollMs?: number
  /**
   * Told of every route as it is registered, before any other route hook (the security suite's coverage check
   * lists the routes a real app serves with it).
   */
  onRoute?: (route: RouteOptions) => void
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock, logger } = deps
  const services = deps.services ?? createServices(config, deps, deps)
  const metrics = new RequestMetrics(
    services.features.flatMap((f) => f.counters ?? []),
    services.features.flatMap((f) => (f.metrics ? [f.metrics] : [])),
  )
  const deadlines = createRequestDeadlines({ clock, limitMs: config.handlerTimeoutMs, onError: (err) => logger.warn({ err }, 'request deadline sweep failed') })
  // Which family answers a failure raised before any route is chosen, by the URL's prefix.
  const families = new FamilyTable(platformErrors)
  const answerFrameworkError = frameworkErrorHandler(families)
  const log = () => app.log
  // Slow clients: Node checks the header and whole-request timeouts every connectionsCheckingInterval, so checked
  // ten times per limit (at least every second) they hold to within a tenth of the limit.
  const checkEveryMs = Math.min(1_000, Math.ceil(config.headersTimeoutMs / 10))
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: correlationId,
    requestIdHeader: false,
    logController: new MeteringLogController(metrics, { requestIdLogLabel: 'correlationId' }, requestEnded(deadlines.completed, services.features), logger),
    childLoggerFactory: (logger, bindings, options) => lazyChildLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // A hop count trusts that many proxies nearest the server (Fastify's types take it as a function).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: checkEveryMs,
      // Checked in the onRequest hook below, so that a missing Host answers in the family's contract, not empty.
      requireHostHeader: false,
    },
    // Requests the HTTP parser rejects, or cut off by a timeout: answered in the contract of the family at the path.
    clientErrorHandler: clientErrorHandler(families, log),
    // Long enough for any valid path parameter to reach schema validation, which names the field.
    routerOptions: { maxParamLength: 256 },
    // Raised before a route is chosen: answered by the family mounted at the URL's prefix.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-CorrelationID', request.id)
      return answerFrameworkError(error, request, reply)
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute)
  app.server.maxConnections = config.maxConnections
  app.server.on('checkExpectation', expectationHandler(families, log))
  app.server.on('connect', connectHandler(families, log))
  // So that a request cut off inside its headers still answers in the family at its path.
  app.server.on('connection', rememberRequestStarts)
  app.setValidatorCompiler(validatorCompiler)
  // Fastify refuses an empty JSON body. A DELETE (or GET) takes no body, and clients that put Content-Type:
  // application/json on every call (many HTTP libraries' defaults) send one empty: that is no body, not malformed JSON.
  // Every other method keeps Fastify's own parser and its refusal.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && (request.method === 'DELETE' || request.method === 'GET' || request.method === 'HEAD')) done(null, undefined)
    else parseJson(request, body as string, done)
  })
  app.decorate('services', services)
  // Who called (platform/http/caller.ts): one request shape, set by the gateways, read by the request log.
  app.decorateRequest('caller', undefined)
  // The root's own not-found handler: Fastify's logs the raw URL, secrets in its query included.
  useErrorFamily(app, platformErrors)
  if (config.bodyMinBytesPerSecond > 0) app.addHook('onRoute', guardBodies(bodyRateGuard(config.bodyMinBytesPerSecond, config.bodyRateWindowMs)))

  await services.maintenance.refresh()
  services.maintenance.start(deps.settingsPollMs ?? 5_000)
  if (config.pruneIntervalMs > 0) services.housekeeping.start(config.pruneIntervalMs)
  if (config.jobsPollMs > 0) services.jobs.start(config.jobsPollMs)
  // Features' periodic work (the report scheduler) runs at the job runner's pace, and only where it runs.
  const inFlight = new Set<Promise<unknown>>()
  const tracked = (run: () => Promise<unknown>) => () => {
    const p = run()
    inFlight.add(p)
    const forget = () => void inFlight.delete(p)
    p.then(forget, forget)
    return p
  }
  const background = services.features
    .flatMap((f) => f.background ?? [])
    .map((task) => periodic(task.name, clock, tracked(() => task.run()), (err) => logger.warn({ err, task: task.name }, 'background task failed')))
  if (config.jobsPollMs > 0) for (const task of background) task.start(config.jobsPollMs)
  // Swept ten times per limit (at least every second), so a late request is answered within a tenth of the limit.
  deadlines.start(Math.min(1_000, Math.ceil(config.handlerTimeoutMs / 10)))
  app.addHook('onClose', async () => {
    deadlines.stop()
    for (const task of background) task.stop()
    await Promise.allSettled([...inFlight])
    await services.jobs.stop()
    services.maintenance.stop()
    services.housekeeping.stop()
    for (const feature of services.features) await feature.close?.()
  })

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-CorrelationID', request.id)
    deadlines.started(reply)
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own check would answer 400 with no body.
    if (request.headers.host === undefined && request.raw.httpVersionMinor === 1) done(invalid([{ field: 'Host', reason: 'required header is missing' }]))
    else done()
  })
  // Text PostgreSQL cannot store (U+0000) answers 400 in every family, before any schema or handler sees it.
  app.addHook('preValidation', refuseNul)

  // First, so that the document sees every route registered after it.
  // The examples are real sandbox answers (the home page's lists the sandbox's published keys): production's
  // document has the schemas without them.
  const examples = config.mode === 'sandbox' ? undefined : {}
  await app.register(openapiPlugin, { version: VERSION, publicUrl: config.publicUrl, examples, features: services.features.flatMap((f) => (f.openapi ? [f.openapi] : [])) })
  await metricsRoutes(app, metrics)
  await app.register(healthRoutes, { db })
  await app.register(homeRoutes, { mode: config.mode, version: VERSION, sandbox: config.mode === 'sandbox' ? sandboxHints(config) : [] })

  for (const feature of services.features) {
    const http = feature.http
    if (!http) continue
    const { errors, prefixes = [] } = http
    if (errors) {
      checkFamily(errors)
      for (const prefix of prefixes) families.mount(prefix, errors)
    }
    for (const mounted of http.families ?? []) {
      checkFamily(mounted.family)
      families.mount(mounted.prefix, mounted.family)
    }
    // One scope per feature, with no prefix: its routes write their whole paths. The unknown paths under each of its
    // prefixes are answered by a child scope registered last, so they pass the feature's hooks (its gateway) first.
    await app.register(async (scope) => {
      if (errors) useErrorFamily(scope, errors, { notFound: false })
      await http.register(scope)
      if (errors) for (const prefix of prefixes) await scope.register(async (owned) => answerUnknownPaths(owned), { prefix })
    })
  }
  return app
}

/** What the log controller tells of each request's end: the deadlines, then the features that observe requests. */
function requestEnded(deadlines: (reply: FastifyReply) => void, features: Services['features']): (reply: FastifyReply) => void {
  const observers = features.flatMap((f) => (f.requestCompleted ? [f.requestCompleted] : []))
  if (observers.length === 0) return deadlines
  return (reply) => {
    deadlines(reply)
    for (const observe of observers) observe(reply.request, reply)
  }
}

/** The published sandbox credentials the home page shows (each feature's own constants). */
function sandboxHints(config: Config): { label: string; value: string }[] {
  const testrest = SANDBOX_REPORTING_KEYS.find((k) => k.organizationId === 'testrest')!
  const customer = SANDBOX_LOGINS.usernamePassword
  const user = SANDBOX_MERCHANT_USERS[0]
  return [
    { label: 'Banking application key (x-svc-key)', value: config.sandboxApiKey ?? '' },
    { label: 'Banking customer sign-in (username / password)', value: `${customer.username} / ${customer.password}` },
    { label: 'Reporting merchant id', value: testrest.organizationId },
    { label: 'Reporting key id (HTTP Signature)', value: testrest.id },
    { label: 'Reporting shared secret (HTTP Signature)', value: testrest.secret },
    { label: 'Merchant user on the consent page (username / password)', value: `${user.username} / ${user.password}` },
  ]
}

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
