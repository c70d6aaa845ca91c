// The reporting interface's error family. Most reporting calls answer a failure with the real service's body,
// `{submitTimeUtc, reason, message, details: [{field, reason}]}` (reference README; the 400/404/500 bodies of
// cybersource-reporting-v3-paths.json); an authentication failure answers the real service's 401 body,
// `{response: {rmsg}}`, which is what its HTTP Signature check returns and what the official SDK reads.
import type { Clock } from '../platform/clock.js'
import type { ErrorKind } from '../platform/errors.js'
import type { ErrorFamily, WireCode } from '../platform/http/error-family.js'

export const REPORTING_CODES = {
  INVALID_DATA: { http: 400, message: 'One or more fields contains invalid data' },
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

/** The reporting family; `submitTimeUtc` reads the injected clock, in whole seconds as the real service writes it. */
export function reportingErrors(clock: Clock): ErrorFamily<ReportingCode> {
  return {
    name: 'reporting',
    codes: REPORTING_CODES,
    kinds: REPORTING_ERROR_TABLE,
    render(error) {
      if (error.code === 'UNAUTHORIZED') return { response: { rmsg: REPORTING_CODES.UNAUTHORIZED.message } }
      // A 304 carries no body.
      if (error.code === 'NOT_MODIFIED') return undefined
      return {
        submitTimeUtc: clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        reason: error.code,
        message: REPORTING_CODES[error.code].message,
        details: error.details.map((d) => (d.field === undefined ? { reason: d.reason } : { field: d.field, reason: d.reason })),
      }
    },
  }
}
