// The closed set of failures a service may report, whatever API family it serves. Services throw DomainError;
// each family (banking, reporting, OAuth) owns a table from these kinds to its own wire code, HTTP status and
// message, and a renderer for its body (see platform/http/error-family.ts). A service therefore never knows
// which contract it is answering in, and a new family cannot forget a kind: its table is checked by the compiler.

export const ERROR_KINDS = [
  'unauthenticated',
  'forbidden',
  'not_found',
  'invalid',
  'conflict',
  'not_modified',
  'rate_limited',
  'maintenance',
  'unavailable',
  'timeout',
  'internal',
] as const

export type ErrorKind = (typeof ERROR_KINDS)[number]

/** One problem with the request, for the developer reading the error. Never carries internals. */
export interface ErrorDetail {
  /** The header, parameter or body member at fault, as the client named it. */
  field?: string
  reason: string
}

export interface DomainErrorOptions {
  details?: ErrorDetail[]
  /** Extra response headers, such as Retry-After. */
  headers?: Record<string, string>
  /** A family-specific refinement of the kind where a contract has several codes for one kind (e.g. which credential failed). */
  variant?: string
  cause?: unknown
}

export class DomainError extends Error {
  override name = 'DomainError'
  readonly details: ErrorDetail[]
  readonly headers: Record<string, string>
  readonly variant: string | undefined

  constructor(
    readonly kind: ErrorKind,
    options: DomainErrorOptions = {},
  ) {
    super(options.details?.[0]?.reason ? `${kind}: ${options.details[0].reason}` : kind, options.cause === undefined ? undefined : { cause: options.cause })
    this.details = options.details ?? []
    this.headers = options.headers ?? {}
    this.variant = options.variant
  }
}

const make =
  (kind: ErrorKind) =>
  (details?: ErrorDetail[] | string, options: Omit<DomainErrorOptions, 'details'> = {}): DomainError =>
    new DomainError(kind, { ...options, details: typeof details === 'string' ? [{ reason: details }] : details })

export const unauthenticated = make('unauthenticated')
export const forbidden = make('forbidden')
export const notFound = make('not_found')
export const invalid = make('invalid')
export const conflict = make('conflict')
export const notModified = make('not_modified')
export const rateLimited = make('rate_limited')
export const maintenance = make('maintenance')
export const unavailable = make('unavailable')
export const timeout = make('timeout')
export const internal = make('internal')
