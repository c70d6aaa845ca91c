// The reporting gateway, registered into the /reporting/v3 scope with fastify-plugin so its hooks cover the whole
// scope: every call is authenticated (auth/authenticate.ts: HTTP Signature, the SDK's JWT, or an OAuth bearer
// token) before anything else is read, the body is checked against its signed digest before it is parsed, and the
// organization the call acts for is resolved, with an optional `organizationId` below it. Every authentication
// failure answers the same 401; the reason is only counted (in the log and on /metrics). A credential beyond its
// calls a minute (auth/throttle.ts) answers 429 with Retry-After in the reporting error body.
import { Readable } from 'node:stream'
import type { FastifyError, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import { ORGANIZATION_ID_PATTERN, type OrganizationService } from '../organizations/service.js'
import type { LabelledCounter } from '../platform/counters.js'
import { invalid, notFound, rateLimited, unauthenticated } from '../platform/errors.js'
import { setCaller } from '../platform/http/caller.js'
import { documentContract, firstHeader, type GatewayContract } from '../platform/http/gateway-contract.js'
import type { ActingOrganization, Authentication, ReportingAuthFailure, ReportingAuthenticator } from './auth/authenticate.js'
import { digestMatches, type SignedRequest } from './auth/http-signature.js'
import { errorResponse } from './schemas.js'

export type { ActingOrganization }

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the reporting gateway on every /reporting/v3 request that reaches a handler. */
    actingOrganization?: ActingOrganization
    /** The raw request body of a signed POST/PUT/PATCH, as its digest was checked. */
    rawBody?: Buffer
  }
}

export interface ReportingGatewayOptions {
  authenticator: ReportingAuthenticator
  organizations: Pick<OrganizationService, 'mayActFor' | 'recallMayActFor'>
  /** Refusals by reason (the feature's, exposed on /metrics). */
  failures: LabelledCounter<ReportingAuthFailure>
}

/** The `organizationId` every reporting operation accepts (the reference's pattern and length). */
export const ORGANIZATION_ID_PARAM = Type.String({ pattern: ORGANIZATION_ID_PATTERN, minLength: 1, maxLength: 32, description: 'Act for this organization: your own or one below it' })

/** The gateway's rules in each route's schema: the three schemes, `organizationId`, the 401, 404 and 429. */
const CONTRACT: GatewayContract = {
  security: [{ httpSignature: [] }, { jwt: [] }, { oauth2: ['reporting'] }],
  parameter: { name: 'organizationId', schema: ORGANIZATION_ID_PARAM, required: false, first: false },
  responses: { 401: errorResponse('UNAUTHORIZED'), 404: errorResponse('NOT_FOUND'), 429: errorResponse('TOO_MANY_REQUESTS') },
}

export const reportingGateway = fp<ReportingGatewayOptions>(async (scope, opts) => {
  scope.addHook('onRoute', documentContract(CONTRACT))
  scope.decorateRequest('actingOrganization', undefined)
  scope.decorateRequest('rawBody', undefined)
  const { authenticator, failures } = opts
  const pendingDigest = new WeakMap<FastifyRequest, string>()

  const refuse = (request: FastifyRequest, reason: ReportingAuthFailure) => {
    failures.inc(reason)
    request.log.info({ reason, failures: failures.snapshot() }, 'reporting authentication failed')
    return unauthenticated()
  }

  /** The authentication's answer applied to the request: the error to answer with, or undefined to go on. */
  const admit = (request: FastifyRequest, result: Authentication): FastifyError | undefined => {
    if (!result.ok && result.reason === 'throttled') {
      return hookError(rateLimited(`too many calls with this credential; retry after ${result.retryAfter} seconds`, { headers: { 'retry-after': String(result.retryAfter) } }))
    }
    if (!result.ok) return hookError(refuse(request, result.reason))
    if (result.digest !== undefined) pendingDigest.set(request, result.digest)
    request.actingOrganization = result.acting
    setCaller(request, { scheme: result.acting.scheme, keyId: result.acting.credentialId, organizationId: result.acting.id })
    return undefined
  }

  // Callback style, as the banking gateway's: a signed read whose key and organizations this process knows passes
  // without waiting on a promise (this runs on every call).
  scope.addHook('onRequest', (request, _reply, done) => {
    const signed: SignedRequest = { method: request.method, url: request.raw.url ?? request.url, header: (name) => firstHeader(request, name), source: request.ip }
    // Without Authorization, the signature path as it always was: a signed call pays nothing for the other schemes.
    const authorization = firstHeader(request, 'authorization')
    const result = authorization === undefined ? authenticator.signature(signed) : authenticator.bearer(signed, authorization)
    if (result instanceof Promise) result.then((r) => done(admit(request, r)), (err: unknown) => done(err as FastifyError))
    else done(admit(request, result))
  })

  // The body is read once, here, and checked against the signed digest before any parser sees it.
  scope.addHook('preParsing', (request, _reply, payload, done) => {
    const digest = pendingDigest.get(request)
    if (digest === undefined) return done(null, payload)
    const limit = request.routeOptions.bodyLimit ?? scope.initialConfig.bodyLimit ?? 1_048_576
    digested(payload, limit).then((body) => {
      if (!digestMatches(digest, body)) return done(hookError(refuse(request, 'bad_digest')))
      request.rawBody = body
      const replay = Readable.from(body.length ? [body] : []) as Readable & { receivedEncodedLength?: number }
      replay.receivedEncodedLength = body.length
      done(null, replay)
    }, (err: unknown) => done(err as FastifyError))
  })

  // After validation, so a named organizationId has the reference's shape; an unknown id and one outside the
  // caller's subtree get the same answer, so a caller learns nothing about other tenants.
  scope.addHook('preHandler', (request, _reply, done) => {
    const acting = request.actingOrganization
    if (!acting) return done(hookError(unauthenticated()))
    const named = organizationIdOf(request.query) ?? organizationIdOf(request.body)
    if (named === undefined || named === acting.authenticatedId) return done()
    const act = (allowed: boolean) => {
      if (!allowed) return done(hookError(notFound([{ field: 'organizationId', reason: 'no such organization' }])))
      request.actingOrganization = { ...acting, id: named }
      setCaller(request, { scheme: acting.scheme, keyId: acting.credentialId, organizationId: named })
      done()
    }
    const known = opts.organizations.recallMayActFor(acting.authenticatedId, named)
    if (known !== undefined) return act(known)
    opts.organizations.mayActFor(acting.authenticatedId, named).then(act, (err: unknown) => done(err as FastifyError))
  })
})

/** Fastify types its hooks' callbacks for its own errors; ours reach the same error handler. */
const hookError = (error: Error): FastifyError => error as FastifyError

/** A signed body, read whole: refused as too large past `limit` bytes, before the rest is read. */
async function digested(payload: AsyncIterable<unknown>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of payload) {
    size += (chunk as Buffer).length
    if (size > limit) throw invalid([{ reason: 'body is too large' }])
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** The acting organization of a request the gateway admitted (handlers call this). */
export function actingOrganization(request: FastifyRequest): ActingOrganization {
  if (!request.actingOrganization) throw unauthenticated()
  return request.actingOrganization
}

function organizationIdOf(source: unknown): string | undefined {
  const value = source && typeof source === 'object' ? (source as Record<string, unknown>)['organizationId'] : undefined
  return typeof value === 'string' ? value : undefined
}
