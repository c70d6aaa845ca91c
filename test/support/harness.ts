// Builds the real app on a fresh database, listens on 127.0.0.1, and talks to it over HTTP.
import { Writable } from 'node:stream'
import { Agent, request as httpRequest } from 'undici'
import { buildApp, type App } from '../../src/app.js'
import type { V2Routes } from '../../src/banking/feature.js'
import { prepareDatabase } from '../../src/bootstrap.js'
import { createServices, type ServiceOptions } from '../../src/services.js'
import type { Feature } from '../../src/platform/feature.js'
import type { ReportingRoutes } from '../../src/reporting/feature.js'
import type { ReportFinishedHook } from '../../src/reporting/reports/generate.js'
import { DEFAULT_SANDBOX_API_KEY, loadConfig, type Config } from '../../src/config.js'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { createLogger } from '../../src/platform/logger.js'
import { FakeClock } from './clock.js'
import { createTestDatabase } from './database.js'

export { FakeClock }

export interface Response {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions inspect arbitrary JSON
  json: any
}

export interface CallOptions {
  /** Headers to send; a header set to undefined is not sent at all (the defaults included). */
  headers?: Record<string, string | undefined>
  /** A value to send as JSON, or a string/Buffer to send as is. */
  body?: unknown
  /**
   * Connect from this local address, e.g. 127.0.0.2 (Linux routes all of 127/8 to the loopback interface), so the
   * server sees another source address (request.ip) than the default 127.0.0.1.
   */
  localAddress?: string
}

const agents = new Map<string, Agent>()
function agentFrom(localAddress: string): Agent {
  let agent = agents.get(localAddress)
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })))
  return agent
}

export interface TestApp {
  app: App
  db: Db
  clock: FakeClock
  config: Config
  baseUrl: string
  sandboxKey: string
  /** Every JSON log line the app wrote. */
  logs: Record<string, unknown>[]
  /** Every route the app registered (Fastify's onRoute), HEAD twins of GET routes included. */
  routes: RegisteredRoute[]
  call(method: string, path: string, options?: CallOptions): Promise<Response>
  close(): Promise<void>
}

/** A route as registered: one method and its path pattern (`:param` for a path parameter). */
export interface RegisteredRoute {
  method: string
  url: string
}

export interface TestAppOptions {
  env?: Record<string, string>
  clock?: FakeClock
  features?: V2Routes[]
  /** Whole features (their own prefix and error family), mounted after the built-in ones. */
  extraFeatures?: Feature[]
  /** Probe routes mounted inside the /reporting/v3 scope, behind the reporting gateway. */
  reportingRoutes?: ReportingRoutes[]
  /** The webhook retries' jitter source, the resolver deliveries use. */
  webhooks?: ServiceOptions['webhooks']
  /** Told of every report that ends, inside the transaction recording it. */
  onReportFinished?: ReportFinishedHook
  /** The request log's buffer bound and batch size. */
  requestLog?: ServiceOptions['requestLog']
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase()
  // The OAuth guessing throttles and the merchant API's calls per credential are raised so that tests of other things
  // never meet them (the fake clock stands still: a window never ends); the throttle tests set them.
  const relaxed = {
    OAUTH_SIGN_IN_PER_MINUTE: '100000',
    OAUTH_CLIENT_CALLS_PER_MINUTE: '100000',
    OAUTH_SIGN_IN_PER_CLIENT_PER_MINUTE: '100000',
    OAUTH_CLIENT_CALLS_PER_CLIENT_PER_MINUTE: '100000',
    MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000',
    // The server and the test's client share one event loop: when something holds it past the server's keep-alive
    // timeout (a second app starting in a beforeAll), the server's timer can close an idle connection in the same turn
    // the client sends its next request on it, which then fails with ECONNRESET (seen in CI, at random). The client
    // closes its own idle connections sooner; close() below ends whatever is left. The keep-alive tests set their own.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
  }
  // The request log (on by default in sandbox mode) only where a test asks for it: its thread and its timer on the
  // fake clock are then the test's to expect. Servers the tests start as processes run with the real default.
  const config = loadConfig({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'info', REQUEST_LOG: 'off', ...relaxed, ...options.env })
  const clock = options.clock ?? new FakeClock()
  const logs: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  const db = openDatabase(config.databaseUrl)
  const infrastructure = { db, clock, logger: createLogger(config.logLevel, sink) }
  const routes: RegisteredRoute[] = []
  const onRoute = ({ method, url }: { method: string | string[]; url: string }) => {
    for (const m of [method].flat()) routes.push({ method: m, url })
  }
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  try {
    const services = createServices(config, infrastructure, { extraV2Routes: options.features, extraFeatures: options.extraFeatures, extraReportingRoutes: options.reportingRoutes, onReportFinished: options.onReportFinished, webhooks: options.webhooks, requestLog: options.requestLog })
    await prepareDatabase(config, infrastructure, services)
    app = await buildApp({ config, ...infrastructure, services, onRoute })
    await app.listen({ host: '127.0.0.1', port: 0 })
  } catch (err) {
    // An app that did not start leaves no database behind (a SQLite one is a folder in the temp folder).
    await app?.close().catch(() => {})
    await db.close().catch(() => {})
    await database.drop().catch(() => {})
    throw err
  }
  const started = app
  const address = started.server.address()
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const sandboxKey = config.sandboxApiKey ?? DEFAULT_SANDBOX_API_KEY

  return {
    app: started,
    db,
    clock,
    config,
    baseUrl,
    sandboxKey,
    logs,
    routes,
    call: (method, path, callOptions) => call(baseUrl, sandboxKey, method, path, callOptions),
    async close() {
      try {
        const closing = started.close()
        // Fastify's close ends idle connections and waits for the others: one a test left mid-answer (a download whose
        // body it never read) would now hold it for the ten minutes above.
        started.server.closeAllConnections()
        await closing
      } finally {
        try {
          await db.close()
        } finally {
          await database.drop()
        }
      }
    },
  }
}

export async function call(baseUrl: string, key: string, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {}
  const requested = { 'x-svc-key': key, 'user-agent': 'finapi-tests/1.0', ...options.headers }
  for (const [name, value] of Object.entries(requested)) if (value !== undefined) headers[name] = value
  let body: string | Buffer | undefined
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const dispatcher = options.localAddress === undefined ? undefined : agentFrom(options.localAddress)
  const res = await httpRequest(baseUrl + path, { method: method as 'GET', headers, body, dispatcher })
  const text = await res.body.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: res.headers as Response['headers'], text, json }
}
