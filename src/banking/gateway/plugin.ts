// The banking gateway contract, enforced once for every route registered under /v2 (registered into the /v2
// scope with fastify-plugin, so its hooks cover that whole scope; the scope answers in the banking error family):
// maintenance, the x-svc-key and User-Agent headers, the `v` version parameter, and per-key throttling (in the
// sandbox per key and source address). It also writes these rules into each route's OpenAPI schema.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import type { Application, ApplicationService } from '../../applications/service.js'
import type { Clock } from '../../platform/clock.js'
import { ApiError } from '../errors.js'
import { setCaller } from '../../platform/http/caller.js'
import { connectionMemo } from '../../platform/http/connection-memo.js'
import type { HeaderDocs, HeaderRules } from '../../platform/http/documented-headers.js'
import { documentContract, firstHeader, type GatewayContract } from '../../platform/http/gateway-contract.js'
import type { MaintenanceSwitch } from '../../platform/maintenance.js'
import { GATEWAY_ERROR_CODES, errorResponses } from './schemas.js'
import { createThrottle } from '../../platform/throttle.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling application, set by the gateway before any /v2 handler runs. */
    application?: Application
  }
}

export interface GatewayOptions {
  applications: Pick<ApplicationService, 'authenticate' | 'recall'>
  maintenance: Pick<MaintenanceSwitch, 'isOn'>
  rateLimitPerMinute: number
  /**
   * Count each key's allowance per source address too (request.ip): the sandbox, where everyone shares one key,
   * so a flood denies only its sender. Production counts per key.
   */
  throttlePerSource?: boolean
  clock: Clock
}

const VERSION_PARAM = Type.String({ enum: ['1'], description: 'Interface version; the only value is 1 (API-422 otherwise)' })

/** The gateway's rules in each /v2 route's schema: the application key, `v` (first), and the gateway's errors. */
const CONTRACT: GatewayContract = {
  security: [{ svcKey: [] }],
  parameter: { name: 'v', schema: VERSION_PARAM, required: true, first: true },
  responses: errorResponses(GATEWAY_ERROR_CODES),
  headers: rateLimitHeaders(),
}

/**
 * The key's allowance, on every answer to a known key with `v=1` (so on every success and every 429; not on a
 * missing or unknown key, a wrong version, or maintenance, which are refused before the allowance is counted).
 */
function rateLimitHeaders(): HeaderRules {
  const count = { type: 'string', pattern: '^[0-9]+$' }
  const allowance = (required: boolean): HeaderDocs => ({
    'X-RateLimit-Limit': { description: 'Requests allowed per minute (RATE_LIMIT_PER_MINUTE), per key (in the sandbox, per key and source address)', required, schema: count },
    'X-RateLimit-Remaining': { description: 'Requests left in the current minute', required, schema: count },
    'X-RateLimit-Reset': { description: 'Seconds until the allowance is whole again', required, schema: count },
  })
  return { all: allowance(false), 200: allowance(true), 429: allowance(true) }
}

export const gateway = fp<GatewayOptions>(async (v2, opts) => {
  v2.addHook('onRoute', documentContract(CONTRACT))
  v2.decorateRequest('application', undefined) // one request shape: see the banking routes' `principal`
  const throttle = createThrottle(opts.rateLimitPerMinute, 60_000, opts.clock)
  const perSource = opts.throttlePerSource === true

  /** Every check after the key's: the version, then the key's allowance. Returns the failure, if any. */
  const admit = (request: FastifyRequest, reply: FastifyReply, application: Application): ApiError | undefined => {
    request.application = application
    // Banking calls act for no organization; the application's id names the key (the key itself is a secret).
    setCaller(request, { scheme: request.headers.authorization === undefined ? 'banking_key' : 'banking_token', keyId: application.id, organizationId: null })
    // An unknown path has no version to check: it answers API-404 from the not-found handler.
    if (!request.is404 && (request.query as Record<string, unknown> | undefined)?.v !== '1') return new ApiError('API-422')
    // Only a known key with a valid request line is counted, so unknown keys never consume anyone's allowance.
    const allowance = throttle.take(perSource ? `${application.id} ${request.ip}` : application.id)
    reply.headers({
      'x-ratelimit-limit': String(allowance.limit),
      'x-ratelimit-remaining': String(allowance.remaining),
      'x-ratelimit-reset': String(allowance.resetSeconds),
    })
    return allowance.allowed ? undefined : new ApiError('API-521', [], { 'retry-after': String(allowance.resetSeconds) })
  }

  // Callback style, so a key verified moments ago passes without waiting on a promise: this runs on every call.
  // (No closure is made per call on that path: the TypeScript loader names each one, which costs a property write.)
  v2.addHook('onRequest', (request, reply, done) => {
    if (opts.maintenance.isOn()) return done(new ApiError('API-522') as FastifyError)
    const key = firstHeader(request, 'x-svc-key')
    const userAgent = firstHeader(request, 'user-agent')
    if (!key || !userAgent) {
      return done(new ApiError('API-420', [{ field: key ? 'User-Agent' : 'x-svc-key', reason: 'required header is missing' }]) as FastifyError)
    }
    const known = opts.applications.recall(key, connectionMemo(request.raw)?.key)
    if (known) return done(admit(request, reply, known) as FastifyError | undefined)
    opts.applications.authenticate(key).then(
      (application) => done((application ? admit(request, reply, application) : new ApiError('API-440')) as FastifyError | undefined),
      (err: unknown) => done(err as FastifyError),
    )
  })

})
