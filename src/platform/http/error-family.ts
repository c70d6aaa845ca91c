// How each API family answers a failure. A family (banking, reporting, OAuth) is a table from the platform's
// error kinds to its own codes, each code's HTTP status and message, and a renderer for its body. The plugin that
// mounts a family's routes calls `useErrorFamily`, so every failure under it — thrown by a service, raised by
// validation, a body too large, malformed JSON, an unknown path — answers in that family's contract. Failures
// Fastify raises before any route is chosen go through `frameworkErrorHandler`, and requests the HTTP parser
// rejects go through the raw client-error path (client-errors.ts); both pick the family from one `FamilyTable`.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, ERROR_KINDS, internal, invalid, notFound, type ErrorDetail, type ErrorKind } from '../errors.js'

export interface WireCode {
  http: number
  message: string
}

/** A failure in a family's own terms: one of its codes, with the details and headers to send. */
export interface WireError<Code extends string = string> {
  code: Code
  details: ErrorDetail[]
  headers?: Record<string, string>
}

export interface ErrorFamily<Code extends string = string> {
  readonly name: string
  /** Every code the family answers with, with its HTTP status and message: the one table, also used by OpenAPI. */
  readonly codes: Readonly<Record<Code, WireCode>>
  /** The code each domain error kind answers with. */
  readonly kinds: Readonly<Record<ErrorKind, Code>>
  /** The body of an error answer. It sees no request: a request the parser rejected has none to give. */
  render(error: WireError<Code>): unknown
  /** Content type of error bodies; JSON by default. */
  readonly contentType?: string
  /** Headers every error answer of the family carries, those written before routing or by the parser's path too. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * The family's own wire errors (errors that already name one of its codes, such as the banking gateway's
   * API-422), or a family-specific reading of a framework error; undefined leaves it to the generic mapping.
   */
  own?(error: unknown): WireError<Code> | undefined
}

/** A framework or unexpected error as a domain error: validation and client errors are `invalid`, the rest `internal`. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error
  const e = error as Partial<FastifyError>
  if (e.validation) {
    const context = e.validationContext ?? 'request'
    return invalid(e.validation.map((v) => ({ field: fieldName(context, v.instancePath, v.params), reason: v.message ?? 'is invalid' })))
  }
  const status = e.statusCode ?? 500
  if (status === 404) return notFound()
  // Fastify's own client errors: malformed JSON, an unsupported content type, a body over the limit, a bad URL.
  if (status >= 400 && status < 500) {
    const reason = status === 413 ? 'body is too large' : status === 415 ? 'unsupported content type' : status === 414 ? 'a path parameter is too long' : 'malformed request'
    return invalid([{ reason }])
  }
  return internal(undefined, { cause: error })
}

/** The member at fault, as the client wrote it: `query.v`, `loginRequest.brand`, `Authorization`… */
function fieldName(context: string, instancePath: string, params: Record<string, unknown>): string {
  const path = instancePath.split('/').filter(Boolean)
  // TypeBox reports the missing members of an object together.
  const missing = params['requiredProperties'] as string[] | undefined
  if (missing) path.push(missing.join(','))
  return [context === 'body' ? undefined : context, ...path].filter(Boolean).join('.')
}

/** Anything thrown while serving one of the family's routes, in the family's terms. */
export function toWireError<Code extends string>(family: ErrorFamily<Code>, error: unknown): WireError<Code> {
  const own = family.own?.(error)
  if (own) return own
  const domain = toDomainError(error)
  return { code: family.kinds[domain.kind], details: domain.details, headers: domain.headers }
}

/** Answers a failure in the family's contract, and logs it: unexpected failures with their cause, the rest briefly. */
export function answerError<Code extends string>(family: ErrorFamily<Code>, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const wire = toWireError(family, error)
  const { http } = family.codes[wire.code]
  if (http >= 500 && wire.code === family.kinds.internal) request.log.error({ err: error }, 'unexpected failure')
  else request.log.info({ code: wire.code, details: wire.details }, 'request rejected')
  if (family.headers) reply.headers(family.headers)
  if (wire.headers) reply.headers(wire.headers)
  if (family.contentType) reply.type(family.contentType)
  return reply.code(http).send(family.render(wire))
}

/**
 * Makes every failure in this scope answer in the family's contract, and unknown paths under its prefix too unless
 * `notFound` is false (where two scopes share one prefix, only one of them may own its unknown paths).
 */
export function useErrorFamily(scope: FastifyInstance, family: ErrorFamily, options: { notFound?: boolean } = {}): void {
  scope.setErrorHandler((error, request, reply) => answerError(family, error, request, reply))
  if (options.notFound !== false) answerUnknownPaths(scope)
}

/** Unknown paths under the scope's prefix answer not_found, in the family of the scope's error handler. */
export function answerUnknownPaths(scope: FastifyInstance): void {
  scope.setNotFoundHandler(async () => {
    throw notFound()
  })
}

/** A family answering the failures raised outside any route under `prefix` (a path, or the start of several). */
export interface MountedFamily {
  prefix: string
  family: ErrorFamily
}

/**
 * The families by the URL prefix they are mounted under, for failures raised before a route is chosen: the longest
 * matching prefix wins, and a URL under none gets the fallback. Filled while the app is built.
 */
export class FamilyTable {
  readonly #mounted: MountedFamily[] = []
  constructor(readonly fallback: ErrorFamily) {}

  mount(prefix: string, family: ErrorFamily): void {
    this.#mounted.push({ prefix, family })
    this.#mounted.sort((a, b) => b.prefix.length - a.prefix.length)
  }

  /** The family answering for a request target (`/v2/accounts?v=1`); '' or anything else gets the fallback. */
  forUrl(url: string): ErrorFamily {
    for (const { prefix, family } of this.#mounted) {
      const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
      if (url.startsWith(base) && (url.length === base.length || url[base.length] === '/' || url[base.length] === '?')) return family
    }
    return this.fallback
  }
}

/**
 * Fastify's `frameworkErrors` option: errors raised before a route is chosen (a malformed URL, a path parameter over
 * the router's limit). They answer in the family mounted at the URL's prefix, or in the fallback elsewhere.
 */
export function frameworkErrorHandler(table: FamilyTable) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => answerError(table.forUrl(request.url), error, request, reply)
}

/** A failure as a family answers it, for paths that write the HTTP response themselves: status, type, body bytes. */
export function renderFailure<Code extends string>(family: ErrorFamily<Code>, error: unknown): { status: number; headers: Record<string, string>; body: Buffer } {
  const wire = toWireError(family, error)
  const body = family.render(wire)
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body)
  return {
    status: family.codes[wire.code].http,
    headers: { ...family.headers, ...wire.headers, 'content-type': family.contentType ?? 'application/json; charset=utf-8' },
    body: Buffer.from(text, 'utf8'),
  }
}

/** Checks at start-up that a family's table is complete and names only its own codes. */
export function checkFamily(family: ErrorFamily): void {
  for (const kind of ERROR_KINDS) {
    const code = family.kinds[kind]
    if (!(code in family.codes)) throw new Error(`error family ${family.name}: kind ${kind} maps to unknown code ${code}`)
  }
}

/**
 * Routes outside every API family (health, metrics, the documents): a plain JSON error in Fastify's own shape,
 * `{statusCode, error, message}`, which is what they answered before families existed.
 */
export const platformErrors: ErrorFamily<'400' | '401' | '403' | '404' | '409' | '304' | '429' | '503' | '504' | '500'> = {
  name: 'platform',
  codes: {
    '304': { http: 304, message: 'Not Modified' },
    '400': { http: 400, message: 'Bad Request' },
    '401': { http: 401, message: 'Unauthorized' },
    '403': { http: 403, message: 'Forbidden' },
    '404': { http: 404, message: 'Not Found' },
    '409': { http: 409, message: 'Conflict' },
    '429': { http: 429, message: 'Too Many Requests' },
    '503': { http: 503, message: 'Service Unavailable' },
    '504': { http: 504, message: 'Gateway Timeout' },
    '500': { http: 500, message: 'Internal Server Error' },
  },
  kinds: {
    unauthenticated: '401',
    forbidden: '403',
    not_found: '404',
    invalid: '400',
    conflict: '409',
    not_modified: '304',
    rate_limited: '429',
    maintenance: '503',
    unavailable: '503',
    timeout: '504',
    internal: '500',
  },
  render(error) {
    const { http, message } = platformErrors.codes[error.code]
    // A 304 carries no body.
    if (http === 304) return undefined
    return { statusCode: http, error: message, message: error.details[0]?.reason ?? message }
  },
}
