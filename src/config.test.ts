import { describe, expect, it } from 'vitest'
import { ConfigError, DEFAULT_SANDBOX_API_KEY, SANDBOX_SECRETS_KEY, loadConfig } from './config.js'

describe('loadConfig', () => {
  it('gives a runnable sandbox from an empty environment', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({ mode: 'sandbox', host: '127.0.0.1', port: 3000, databaseUrl: 'sqlite:./data/finapi.db', sandboxApiKey: DEFAULT_SANDBOX_API_KEY })
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('parses numbers and accepts PostgreSQL URLs', () => {
    const config = loadConfig({ PORT: '8080', RATE_LIMIT_PER_MINUTE: '50', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '70', DATABASE_URL: 'postgres://u@h/db' })
    expect(config.port).toBe(8080)
    expect(config.rateLimitPerMinute).toBe(50)
    expect(config.merchantApiRateLimitPerMinute).toBe(70)
    expect(loadConfig({}).merchantApiRateLimitPerMinute).toBe(1000)
    expect(config.databaseUrl).toBe('postgres://u@h/db')
  })

  it('prunes every 10 minutes by default; 0 turns the timer off', () => {
    expect(loadConfig({}).pruneIntervalMs).toBe(600_000)
    expect(loadConfig({ PRUNE_INTERVAL_SECONDS: '0' }).pruneIntervalMs).toBe(0)
    expect(loadConfig({ PRUNE_INTERVAL_SECONDS: '30' }).pruneIntervalMs).toBe(30_000)
  })

  it('lets outbound calls reach private networks only when told so; webhook receivers on loopback in the sandbox', () => {
    const production = { MODE: 'production', DATABASE_URL: 'postgres://u@h/db', SECRETS_KEY: 'k'.repeat(40) }
    expect(loadConfig({}).outboundAllowPrivateNetworks).toBe(false)
    expect(loadConfig(production).outboundAllowPrivateNetworks).toBe(false)
    expect(loadConfig({}).webhookAllowedNetworks).toEqual(['127.0.0.0/8', '::1/128'])
    expect(loadConfig(production).webhookAllowedNetworks).toEqual([])
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: 'none' }).webhookAllowedNetworks).toEqual([])
    expect(loadConfig({ ...production, WEBHOOK_ALLOWED_NETWORKS: '10.1.0.0/16, fd00::/8,192.168.1.10' }).webhookAllowedNetworks).toEqual(['10.1.0.0/16', 'fd00::/8', '192.168.1.10'])
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' }).outboundAllowPrivateNetworks).toBe(false)
    expect(loadConfig({ MODE: 'production', DATABASE_URL: 'postgres://u@h/db', SECRETS_KEY: 'k'.repeat(40), OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }).outboundAllowPrivateNetworks).toBe(true)
    expect(loadConfig({}).outboundTimeoutMs).toBe(10_000)
    expect(loadConfig({ OUTBOUND_TIMEOUT_MS: '2500' }).outboundTimeoutMs).toBe(2_500)
  })

  it.each([
    ['OUTBOUND_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_ALLOWED_NETWORKS', '10.0.0.0/33'],
    ['WEBHOOK_ALLOWED_NETWORKS', 'intranet'],
    ['OUTBOUND_TIMEOUT_MS', '5'],
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['MODE', 'staging'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['MERCHANT_API_RATE_LIMIT_PER_MINUTE', '0'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['SANDBOX_API_KEY', 'short'],
    ['PRUNE_INTERVAL_SECONDS', '-1'],
    ['PRUNE_INTERVAL_SECONDS', 'hourly'],
  ])('a bad %s=%s stops the boot with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid environment variable ${name}=`))
  })

  it('production refuses to start on the default database', () => {
    expect(() => loadConfig({ MODE: 'production' })).toThrow(/DATABASE_URL must be set/)
  })

  it('production refuses any sandbox setting', () => {
    expect(() => loadConfig({ MODE: 'production', DATABASE_URL: 'sqlite:/tmp/x.db', SANDBOX_API_KEY: DEFAULT_SANDBOX_API_KEY })).toThrow(/SANDBOX_API_KEY/)
  })

  it('production has no sandbox key', () => {
    expect(loadConfig({ MODE: 'production', DATABASE_URL: 'sqlite:/tmp/x.db', SECRETS_KEY: PRODUCTION_SECRET }).sandboxApiKey).toBeUndefined()
  })
})

const PRODUCTION_SECRET = 'p'.repeat(31) + 'x'

describe('SECRETS_KEY', () => {
  it('the sandbox uses the documented value; any other of at least 32 characters may replace it', () => {
    expect(loadConfig({}).secretsKey).toBe(SANDBOX_SECRETS_KEY)
    expect(loadConfig({ SECRETS_KEY: PRODUCTION_SECRET }).secretsKey).toBe(PRODUCTION_SECRET)
  })

  it('production requires it, and refuses the sandbox value', () => {
    const production = { MODE: 'production', DATABASE_URL: 'sqlite:/tmp/x.db' }
    expect(() => loadConfig(production)).toThrow(/SECRETS_KEY must be set/)
    expect(() => loadConfig({ ...production, SECRETS_KEY: SANDBOX_SECRETS_KEY })).toThrow(/SECRETS_KEY must not be the published sandbox value/)
    expect(loadConfig({ ...production, SECRETS_KEY: PRODUCTION_SECRET }).secretsKey).toBe(PRODUCTION_SECRET)
  })

  it('refuses a short key without showing it', () => {
    const short = 'short-secret-value'
    expect(() => loadConfig({ SECRETS_KEY: short })).toThrow(/SECRETS_KEY must be at least 32 characters/)
    expect(() => loadConfig({ SECRETS_KEY: short })).not.toThrow(new RegExp(short))
  })

  it('is never serialised with the config', () => {
    const config = loadConfig({ SECRETS_KEY: PRODUCTION_SECRET })
    expect(JSON.stringify(config)).not.toContain(PRODUCTION_SECRET)
    expect(Object.keys(config)).not.toContain('secretsKey')
  })
})

describe('slow-client limits', () => {
  it('default to holding limits and refuse a header timeout longer than the request timeout', () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, bodyMinBytesPerSecond: 512, bodyRateWindowMs: 5_000, maxConnections: 1_024 })
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrow(/HEADERS_TIMEOUT_MS=20000 must not exceed REQUEST_TIMEOUT_MS=10000/)
  })
})
