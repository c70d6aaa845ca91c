// The banking gateway's status codes, exactly as the spec's Errors table gives them. Every /v2 response's
// `status` block and HTTP status come from this one table; the OpenAPI document is generated from it too.

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

/** One problem with the request, for the developer reading the error. Never carries internals. */
export interface ErrorDetail {
  field?: string
  reason: string
}

/** A failure the client is told about: its code fixes the HTTP status and the message. */
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

export function statusBlock(code: ApiCode, details?: ErrorDetail[]) {
  const block: { code: ApiCode; message: string; details?: ErrorDetail[] } = { code, message: API_STATUS[code].message }
  if (details && details.length > 0) block.details = details
  return block
}

/** The body of every successful /v2 response starts with this. */
export const SUCCESS = Object.freeze(statusBlock('API-200'))
