// The banking interface's status codes, exactly as the spec's Errors table gives them, and the table from the
// platform's error kinds to them. Every /v2 response's `status` block and HTTP status come from here; the OpenAPI
// document is generated from it too.
import type { ErrorDetail, ErrorKind } from '../platform/errors.js'
import type { ErrorFamily } from '../platform/http/error-family.js'

export const API_STATUS = {
  'API-200': { message: 'Success', http: 200 },
  'API-404': { message: 'Service Not Found', http: 404 },
  'API-420': { message: 'Invalid Request', http: 400 },
  'API-422': { message: 'Version Not Found', http: 404 },
  'API-430': { message: 'Provider Error', http: 400 },
  'API-440': { message: 'Invalid Application', http: 403 },
  'API-448': { message: 'Gateway Authentication Failure', http: 401 },
  'API-520': { message: 'Server Failure', http: 500 },
  'API-521': { message: 'Throttle Limit Exceeded', http: 429 },
  'API-522': { message: 'Server Down For Maintenance', http: 503 },
  'API-523': { message: 'Server Timeout', http: 504 },
  'API-526': { message: 'Feature Not Supported', http: 501 },
} as const satisfies Record<string, { message: string; http: number }>

export type ApiCode = keyof typeof API_STATUS
export type ApiErrorCode = Exclude<ApiCode, 'API-200'>

/** What each kind of domain failure answers on the banking interface. */
export const BANKING_ERROR_TABLE = {
  unauthenticated: 'API-448',
  forbidden: 'API-440',
  not_found: 'API-404',
  invalid: 'API-420',
  // The banking contract has no conflict or not-modified answer: both are a request it cannot carry out.
  conflict: 'API-420',
  not_modified: 'API-420',
  rate_limited: 'API-521',
  maintenance: 'API-522',
  unavailable: 'API-430',
  timeout: 'API-523',
  internal: 'API-520',
} as const satisfies Record<ErrorKind, ApiErrorCode>

/**
 * A banking wire failure named by its code: for the gateway's own rules that have no domain kind (API-422, a
 * version not found; API-526). Services throw the platform's DomainError instead.
 */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly code: ApiErrorCode,
    readonly details: ErrorDetail[] = [],
    /** Extra response headers, such as Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code} ${API_STATUS[code].message}`)
  }

  get httpStatus(): number {
    return API_STATUS[this.code].http
  }
}

export type { ErrorDetail }

export function statusBlock(code: ApiCode, details?: ErrorDetail[]) {
  const block: { code: ApiCode; message: string; details?: ErrorDetail[] } = { code, message: API_STATUS[code].message }
  if (details && details.length > 0) block.details = details
  return block
}

/** The body of every successful /v2 response starts with this. */
export const SUCCESS = Object.freeze(statusBlock('API-200'))

const { 'API-200': _success, ...ERROR_CODES } = API_STATUS

/** The banking interface's error family: every failure under /v2 answers `{status: {code, message, details}}`. */
export const bankingErrors: ErrorFamily<ApiErrorCode> = {
  name: 'banking',
  codes: ERROR_CODES,
  kinds: BANKING_ERROR_TABLE,
  render: (error) => ({ status: statusBlock(error.code, error.details) }),
  own: (error) => (error instanceof ApiError ? { code: error.code, details: error.details, headers: error.headers } : undefined),
}
