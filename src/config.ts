// Configuration is read from the environment once, at boot, checked against one schema and frozen.
// Nothing else in the code base reads process.env.
import { parseNetwork } from './platform/outbound-http.js'
import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'

/** The documented sandbox key: "one shared key for all developers" (banking spec, Authentication 1). */
export const DEFAULT_SANDBOX_API_KEY = 'sandbox-key-finapi'
export const DEFAULT_SQLITE_URL = 'sqlite:./data/finapi.db'
/**
 * The sandbox's server secret: public on purpose (it is in the README), so sandbox lookup keys protect nothing.
 * Production has no default and refuses this value.
 */
export const SANDBOX_SECRETS_KEY = 'finapi-sandbox-secrets-key-not-a-secret'
const MIN_SECRETS_KEY_LENGTH = 32

const EnvSchema = Type.Object({
  MODE: Type.Enum(['sandbox', 'production'], { default: 'sandbox' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' })),
  SANDBOX_API_KEY: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  SANDBOX_STRICT_TOKENS: Type.Enum(['true', 'false'], { default: 'false' }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 1000 }),
  MERCHANT_API_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 1000 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 10_485_760, default: 65_536 }),
  TRUST_PROXY: Type.Optional(Type.String({ pattern: '^(true|false|\\d{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$' })),
  LOG_FORMAT: Type.Enum(['auto', 'json', 'pretty'], { default: 'auto' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  PRUNE_INTERVAL_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400, default: 600 }),
  JOBS_POLL_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
  HANDLER_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
  HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 5_000 }),
  BODY_MIN_BYTES_PER_SECOND: Type.Integer({ minimum: 0, maximum: 10_485_760, default: 512 }),
  BODY_RATE_WINDOW_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5_000 }),
  MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1_024 }),
  SECRETS_KEY: Type.Optional(Type.String()),
  // No default here: it depends on MODE (allowed in the sandbox, refused in production).
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: Type.Optional(Type.Enum(['true', 'false'])),
  OUTBOUND_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 300_000, default: 10_000 }),
  // No default here either: loopback in the sandbox, nothing in production.
  WEBHOOK_ALLOWED_NETWORKS: Type.Optional(Type.String({ maxLength: 4096 })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+$' })),
  OAUTH_SIGN_IN_PER_MINUTE: Type.Integer({ minimum: 1, default: 20 }),
  OAUTH_SIGN_IN_PER_CLIENT_PER_MINUTE: Type.Integer({ minimum: 1, default: 600 }),
  CONSOLE_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 30 }),
  CONSOLE_SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
  OAUTH_CLIENT_CALLS_PER_MINUTE: Type.Integer({ minimum: 1, default: 120 }),
  OAUTH_CLIENT_CALLS_PER_CLIENT_PER_MINUTE: Type.Integer({ minimum: 1, default: 3000 }),
  REPORT_MAX_WINDOW_DAYS: Type.Integer({ minimum: 1, maximum: 3660, default: 31 }),
  REPORT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_600, default: 90 }),
  REPORT_STORE: Type.Enum(['auto', 'directory', 'database'], { default: 'auto' }),
  REPORT_STORE_DIR: Type.Optional(Type.String({ minLength: 1 })),
  REPORT_LEASE_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  REPORT_MAX_SUBSCRIPTIONS_PER_ORG: Type.Integer({ minimum: 1, maximum: 100_000, default: 100 }),
  REPORT_MIN_INTERVAL_MINUTES: Type.Integer({ minimum: 1, maximum: 1439, default: 5 }),
  REPORT_MAX_QUEUED_PER_ORG: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 500 }),
  // On by default in sandbox mode, off in production (see requestLog below).
  REQUEST_LOG: Type.Optional(Type.Enum(['on', 'off'])),
  REQUEST_LOG_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3660, default: 7 }),
  REQUEST_LOG_INTERVAL_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 250 }),
})

export interface Config {
  readonly mode: 'sandbox' | 'production'
  readonly host: string
  readonly port: number
  readonly databaseUrl: string
  /** Present in sandbox mode only. */
  readonly sandboxApiKey: string | undefined
  /**
   * Sandbox only: check Authorization tokens as production does. Otherwise the sandbox follows the spec and
   * reads any Authorization string that is not a session as the first sandbox customer.
   */
  readonly sandboxStrictTokens: boolean
  readonly rateLimitPerMinute: number
  /**
   * Calls a minute per credential (reporting key, JWT certificate, OAuth client and organization) on every route of
   * the merchant API family; in the sandbox per credential and source address. Per process.
   */
  readonly merchantApiRateLimitPerMinute: number
  readonly bodyLimitBytes: number
  readonly logLevel: string
  /**
   * Which proxies' X-Forwarded-For to believe for the client's address (request.ip, which the sandbox's per-source
   * limits count): false (none), true (any), a hop count, or a list of proxy addresses/CIDRs.
   */
  readonly trustProxy: boolean | number | string
  /** `auto`: readable lines when stdout is a terminal, JSON otherwise. */
  readonly logFormat: 'auto' | 'json' | 'pretty'
  /** How often each server deletes expired sessions, tokens and codes; 0 leaves it to `finapi prune`. */
  readonly pruneIntervalMs: number
  /** How often each server looks for due background jobs; 0 runs none in this process. */
  readonly jobsPollMs: number
  /** A request not answered this long after it arrived is answered with a timeout (API-523 on /v2). */
  readonly handlerTimeoutMs: number
  /** Slow clients: the request line and headers must arrive within headersTimeoutMs, the whole request within requestTimeoutMs. */
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutMs: number
  /** A body bringing fewer bytes than this a second over a window of bodyRateWindowMs is cut off; 0: no minimum. */
  readonly bodyMinBytesPerSecond: number
  readonly bodyRateWindowMs: number
  /** Connections one process holds open at once; further ones are closed as they arrive. */
  readonly maxConnections: number
  /**
   * The server secret keys are derived from (platform/crypto.ts deriveKey). Not enumerable, so logging or
   * serialising the config never shows it.
   */
  readonly secretsKey: string
  /**
   * The server's base URL as clients reach it (scheme and authority, no path): the OAuth issuer, and the URL DPoP
   * proofs name. Unset: derived from each request's protocol and Host header.
   */
  readonly publicUrl: string | undefined
  /** Throttles of the OAuth sign-in page and the client-authenticated endpoints, per process (see README). */
  readonly oauthLimits: {
    signInPerMinute: number
    signInPerClientPerMinute: number
    clientCallsPerMinute: number
    clientCallsPerClientPerMinute: number
  }
  /** The merchant console's sessions: ended after this many idle minutes, and this many hours after sign-in in any case. */
  readonly console: { sessionIdleMinutes: number; sessionMaxHours: number }
  /**
   * Outbound calls (webhook deliveries) may reach loopback and private addresses. True by default in the
   * sandbox, where receivers run on the developer's machine; false by default in production (SSRF guard).
   */
  readonly outboundAllowPrivateNetworks: boolean
  /** The whole deadline of one outbound call, connect to last body byte. */
  readonly outboundTimeoutMs: number
  /**
   * Networks webhook receivers may be on although the address guard refuses them (CIDRs or addresses): loopback in
   * the sandbox by default, none in production.
   */
  readonly webhookAllowedNetworks: readonly string[]
  /** The API request log (src/request-log/): whether calls are recorded, and for how many days they are kept. */
  readonly requestLog: { readonly enabled: boolean; readonly retentionDays: number; readonly intervalMs: number }
  readonly reports: {
    /** Longest window of a one-time report. */
    readonly maxWindowDays: number
    /** Finished reports (and their files) older than this are removed. */
    readonly retentionDays: number
    /** Where report files go: `auto` is a directory on SQLite and the database on PostgreSQL. */
    readonly store: 'auto' | 'directory' | 'database'
    /** The directory store's folder; by default `reports/` beside the SQLite file (`./data/reports`). */
    readonly storeDir: string | undefined
    /** A generating process renews its claim this often (a third of it); one that dies lets the report go after this. */
    readonly leaseMs: number
    /**
     * What one organization can make the scheduler do, at most. Each subscription's window is a report (a row, a job,
     * a file): 100 subscriptions with runs every 5 minutes are 28,800 reports a day, far beyond a merchant's real use
     * (a handful of daily reports; the reference's own USER_DEFINED example is PT2H30M) yet a bound on the damage one
     * tenant can do: scheduling a window costs about 0.2 ms of CPU and one transaction, so its sweep work is a small
     * fraction of a CPU, and a sandbox clock moved a year ahead makes at most 10.5 million windows, which are queued
     * as they are generated, `maxQueued` at a time.
     * An organization with `maxQueued` reports queued or generating gets no more queued until some finish, so another
     * organization's report never waits behind more than that many of its. 500 is several days of every report of a
     * merchant with a few dozen daily subscriptions, so catching up after downtime is not slowed by it.
     */
    readonly maxSubscriptions: number
    /** The shortest USER_DEFINED reportInterval allowed, in minutes (the API's own pattern allows PT1M). */
    readonly minIntervalMinutes: number
    readonly maxQueued: number
  }
}

/**
 * A URL with its password replaced by `***`, for messages: a mistyped DATABASE_URL is echoed back to say what was
 * wrong, and its password must not be. Text that does not parse as a URL loses anything between `://` and `@`.
 */
export function maskUrlPassword(text: string): string {
  try {
    const url = new URL(text)
    if (url.password === '') return text
    url.password = '***'
    return url.toString()
  } catch {
    return text.replace(/(\/\/[^/@:]*:)[^/@]*@/, '$1***@')
  }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

type Env = Record<string, string | undefined>

/** Parses and freezes the configuration; throws ConfigError naming the offending variable. */
export function loadConfig(env: Env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const withDefaults = Value.Default(EnvSchema, raw)
  const converted = Value.Convert(EnvSchema, withDefaults)
  const errors = [...Value.Errors(EnvSchema, converted)]
  if (errors.length > 0) {
    const first = errors[0]!
    const variable = first.instancePath.replace(/^\//, '')
    const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues
    const hint = allowed ? ` (one of ${allowed.join(', ')})` : ''
    const shown = /SECRET|KEY|PASSWORD|TOKEN/.test(variable) ? '(value hidden)' : JSON.stringify(maskUrlPassword(String(raw[variable] ?? '')))
    throw new ConfigError(`Invalid environment variable ${variable}=${shown}: ${first.message}${hint}`)
  }
  const e = converted as Static<typeof EnvSchema>

  if (e.MODE === 'production') {
    // Production never runs on a default: a missing database or secret, or a leftover sandbox setting stops the boot.
    if (e.DATABASE_URL === undefined) throw new ConfigError('DATABASE_URL must be set when MODE=production')
    if (e.SANDBOX_API_KEY !== undefined) {
      throw new ConfigError('SANDBOX_API_KEY is a sandbox setting and must not be set when MODE=production')
    }
    if (e.SECRETS_KEY === undefined) throw new ConfigError('SECRETS_KEY must be set when MODE=production (at least 32 characters, e.g. openssl rand -base64 48)')
    if (e.SECRETS_KEY === SANDBOX_SECRETS_KEY) throw new ConfigError('SECRETS_KEY must not be the published sandbox value when MODE=production')
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS=${e.HEADERS_TIMEOUT_MS} must not exceed REQUEST_TIMEOUT_MS=${e.REQUEST_TIMEOUT_MS}`)
  }
  const secretsKey = e.SECRETS_KEY ?? SANDBOX_SECRETS_KEY
  if (secretsKey.length < MIN_SECRETS_KEY_LENGTH) throw new ConfigError(`SECRETS_KEY must be at least ${MIN_SECRETS_KEY_LENGTH} characters (value hidden)`)

  const config = {
    mode: e.MODE,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL ?? DEFAULT_SQLITE_URL,
    sandboxApiKey: e.MODE === 'sandbox' ? (e.SANDBOX_API_KEY ?? DEFAULT_SANDBOX_API_KEY) : undefined,
    sandboxStrictTokens: e.SANDBOX_STRICT_TOKENS === 'true',
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    merchantApiRateLimitPerMinute: e.MERCHANT_API_RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    logFormat: e.LOG_FORMAT,
    pruneIntervalMs: e.PRUNE_INTERVAL_SECONDS * 1000,
    handlerTimeoutMs: e.HANDLER_TIMEOUT_MS,
    jobsPollMs: e.JOBS_POLL_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    bodyMinBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND,
    bodyRateWindowMs: e.BODY_RATE_WINDOW_MS,
    maxConnections: e.MAX_CONNECTIONS,
    outboundAllowPrivateNetworks: e.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true',
    webhookAllowedNetworks: Object.freeze(parseNetworks(e.WEBHOOK_ALLOWED_NETWORKS ?? (e.MODE === 'sandbox' ? SANDBOX_ALLOWED_NETWORKS : 'none'))),
    outboundTimeoutMs: e.OUTBOUND_TIMEOUT_MS,
    publicUrl: e.PUBLIC_URL,
    // A sandbox's developers expect to see their calls; a production deployment keeps a week of every call only if its
    // operators choose to (at 100 calls a second, about 2 GB a day on SQLite).
    requestLog: Object.freeze({ enabled: (e.REQUEST_LOG ?? (e.MODE === 'sandbox' ? 'on' : 'off')) === 'on', retentionDays: e.REQUEST_LOG_RETENTION_DAYS, intervalMs: e.REQUEST_LOG_INTERVAL_MS }),
    reports: Object.freeze({
      maxWindowDays: e.REPORT_MAX_WINDOW_DAYS,
      retentionDays: e.REPORT_RETENTION_DAYS,
      store: e.REPORT_STORE,
      storeDir: e.REPORT_STORE_DIR,
      leaseMs: e.REPORT_LEASE_SECONDS * 1000,
      maxSubscriptions: e.REPORT_MAX_SUBSCRIPTIONS_PER_ORG,
      minIntervalMinutes: e.REPORT_MIN_INTERVAL_MINUTES,
      maxQueued: e.REPORT_MAX_QUEUED_PER_ORG,
    }),
    console: Object.freeze({ sessionIdleMinutes: e.CONSOLE_SESSION_IDLE_MINUTES, sessionMaxHours: e.CONSOLE_SESSION_MAX_HOURS }),
    oauthLimits: Object.freeze({
      signInPerMinute: e.OAUTH_SIGN_IN_PER_MINUTE,
      signInPerClientPerMinute: e.OAUTH_SIGN_IN_PER_CLIENT_PER_MINUTE,
      clientCallsPerMinute: e.OAUTH_CLIENT_CALLS_PER_MINUTE,
      clientCallsPerClientPerMinute: e.OAUTH_CLIENT_CALLS_PER_CLIENT_PER_MINUTE,
    }),
  } as Omit<Config, 'secretsKey'>
  return Object.freeze(Object.defineProperty(config, 'secretsKey', { value: secretsKey, enumerable: false }) as Config)
}

/** The sandbox's receivers run on the developer's machine. */
export const SANDBOX_ALLOWED_NETWORKS = '127.0.0.0/8,::1/128'

/** `none`, or a comma-separated list of CIDRs or addresses (`10.1.0.0/16,fd00::/8,192.168.1.10`). */
function parseNetworks(value: string): string[] {
  if (value.trim() === 'none') return []
  const nets = value.split(',').map((n) => n.trim())
  for (const net of nets) {
    if (!parseNetwork(net)) {
      throw new ConfigError(`Invalid environment variable WEBHOOK_ALLOWED_NETWORKS=${JSON.stringify(value)}: ${JSON.stringify(net)} is not a CIDR or an address (or use none)`)
    }
  }
  return nets
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false
  if (value === 'true') return true
  return /^\d+$/.test(value) ? Number(value) : value
}
