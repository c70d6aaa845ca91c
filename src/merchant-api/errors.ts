// The reporting interface's error family. Most reporting calls answer a failure with the real service's body,
// `{submitTimeUtc, reason, message, details: [{field, reason}]}` (reference README; the 400/404/500 bodies of
// cybersource-reporting-v3-paths.json); an authentication failure answers the real service's 401 body,
// `{response: {rmsg}}`, which is what its HTTP Signature check returns and what the official SDK reads.
import type { Clock } from '../platform/clock.js'
import { DomainError, type ErrorDetail, type ErrorKind } from '../platform/errors.js'
import { toDomainError, type ErrorFamily, type WireCode } from '../platform/http/error-family.js'

export const REPORTING_CODES = {
  INVALID_DATA: { http: 400, message: 'One or more fields contains invalid data' },
  // The 400 of the two subscription PUTs, whose body is the reference's Error Bean (see SubscriptionRequestError).
  VALIDATION_ERROR: { http: 400, message: 'Field validation error' },
  UNAUTHORIZED: { http: 401, message: 'Authentication Failed' },
  FORBIDDEN: { http: 403, message: 'Permission denied for this organization' },
  NOT_FOUND: { http: 404, message: 'Not found' },
  DUPLICATE_REQUEST: { http: 409, message: 'The resource already exists' },
  NOT_MODIFIED: { http: 304, message: 'Not Modified' },
  TOO_MANY_REQUESTS: { http: 429, message: 'Too many requests' },
  SERVICE_UNAVAILABLE: { http: 503, message: 'The service is unavailable' },
  SERVER_TIMEOUT: { http: 504, message: 'The request took too long' },
  SERVER_ERROR: { http: 500, message: 'Internal Server Error' },
} as const satisfies Record<string, WireCode>

export type ReportingCode = keyof typeof REPORTING_CODES

export const REPORTING_ERROR_TABLE = {
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  invalid: 'INVALID_DATA',
  conflict: 'DUPLICATE_REQUEST',
  not_modified: 'NOT_MODIFIED',
  rate_limited: 'TOO_MANY_REQUESTS',
  maintenance: 'SERVICE_UNAVAILABLE',
  unavailable: 'SERVICE_UNAVAILABLE',
  timeout: 'SERVER_TIMEOUT',
  internal: 'SERVER_ERROR',
} as const satisfies Record<ErrorKind, ReportingCode>

/**
 * A 400 of the subscription PUTs: the reference gives those two routes their own body, `{code, message,
 * localizationKey, correlationId, detail, fields: [{path, message, localizationKey}]}`. The routes turn every
 * `invalid` failure (schema validation included) into this error with `subscriptionRequestErrors`; the family's
 * `own()` hook answers it as VALIDATION_ERROR. The correlation id travels in the X-CorrelationID header.
 */
export class SubscriptionRequestError extends DomainError {
  constructor(details: ErrorDetail[]) {
    super('invalid', { details, variant: 'subscription-request' })
  }
}

/** Route-level error handler of the subscription PUTs: `invalid` becomes SubscriptionRequestError, the rest passes on. */
export function subscriptionRequestErrors(error: unknown): never {
  const domain = toDomainError(error)
  if (domain.kind === 'invalid' && !(error instanceof SubscriptionRequestError)) throw new SubscriptionRequestError(domain.details)
  throw error
}

/** The reporting family; `submitTimeUtc` reads the injected clock, in whole seconds as the real service writes it. */
export function reportingErrors(clock: Clock): ErrorFamily<ReportingCode> {
  return {
    name: 'reporting',
    codes: REPORTING_CODES,
    kinds: REPORTING_ERROR_TABLE,
    own(error) {
      return error instanceof SubscriptionRequestError ? { code: 'VALIDATION_ERROR', details: error.details } : undefined
    },
    render(error) {
      if (error.code === 'UNAUTHORIZED') return { response: { rmsg: REPORTING_CODES.UNAUTHORIZED.message } }
      // A 304 carries no body.
      if (error.code === 'NOT_MODIFIED') return undefined
      if (error.code === 'VALIDATION_ERROR') {
        return {
          code: error.code,
          message: REPORTING_CODES.VALIDATION_ERROR.message,
          localizationKey: 'cybsapi.validation.errors',
          detail: error.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; '),
          fields: error.details.map((d) => ({ path: d.field ?? '', message: d.reason, localizationKey: 'cybsapi.validation.field.invalid' })),
        }
      }
      return {
        submitTimeUtc: clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        reason: error.code,
        message: REPORTING_CODES[error.code].message,
        details: error.details.map((d) => (d.field === undefined ? { reason: d.reason } : { field: d.field, reason: d.reason })),
      }
    },
  }
}
