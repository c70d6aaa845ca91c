// The OAuth error codes (RFC 6749, 4.1.2.1 and 5.2) as one closed set, and the error families of the token
// endpoint and the authorize pages.
import type { FastifyError } from 'fastify'
import type { ErrorFamily, WireError } from '../platform/http/error-family.js'

// The OAuth error codes (RFC 6749, 4.1.2.1 and 5.2). The token endpoint answers every one of
// them with HTTP 500, as the reporting spec says a token refresh failure does; the authorize endpoint carries them
// back to the client's redirect URI.

export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'temporarily_unavailable',
  'server_error',
  'invalid_dpop_proof',
] as const
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number]

/**
 * The codes of the other client-authenticated endpoints (revocation, introspection, pushed authorization requests):
 * the token endpoint's, plus the authorization request's own (a pushed request is checked as an authorize one).
 */
export const ENDPOINT_ERROR_CODES = [...TOKEN_ERROR_CODES, 'unsupported_response_type'] as const
export type EndpointErrorCode = (typeof ENDPOINT_ERROR_CODES)[number]

export const AUTHORIZE_ERROR_CODES = ['invalid_request', 'unsupported_response_type', 'invalid_scope', 'access_denied', 'server_error'] as const
export type AuthorizeErrorCode = (typeof AUTHORIZE_ERROR_CODES)[number]

/** A token request the server refuses; `description` is for the developer and never carries internals. */
export class OAuthError extends Error {
  override name = 'OAuthError'
  constructor(
    readonly code: EndpointErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`)
  }
}

const FORM = 'application/x-www-form-urlencoded'

/** The first detail as an error_description: a named field leads its reason (`client_id must not contain …`). */
function describe(error: WireError): string | undefined {
  const detail = error.details[0]
  return detail && (detail.field === undefined ? detail.reason : `${detail.field} ${detail.reason}`)
}

/** The token endpoint's family: RFC 6749 5.2 bodies, every one at HTTP 500 as the reporting spec gives a failed refresh. */
export const oauthTokenErrors: ErrorFamily<TokenErrorCode> = {
  name: 'oauth',
  codes: {
    invalid_request: { http: 500, message: 'the request is malformed' },
    invalid_client: { http: 500, message: 'client authentication failed' },
    invalid_grant: { http: 500, message: 'the grant is not valid' },
    unauthorized_client: { http: 500, message: 'the client may not use this grant' },
    unsupported_grant_type: { http: 500, message: 'the grant type is not supported' },
    invalid_scope: { http: 500, message: 'the scope is not valid' },
    temporarily_unavailable: { http: 500, message: 'the server is temporarily unable to handle the request' },
    server_error: { http: 500, message: 'the server could not complete the request' },
    invalid_dpop_proof: { http: 500, message: 'the DPoP proof is not valid' },
  },
  kinds: {
    unauthenticated: 'invalid_client',
    forbidden: 'unauthorized_client',
    not_found: 'invalid_request',
    invalid: 'invalid_request',
    conflict: 'invalid_request',
    not_modified: 'invalid_request',
    rate_limited: 'temporarily_unavailable',
    maintenance: 'temporarily_unavailable',
    unavailable: 'temporarily_unavailable',
    timeout: 'temporarily_unavailable',
    internal: 'server_error',
  },
  // Exactly the spec's Content-Type of a token response, without the space Fastify would otherwise put in.
  contentType: 'application/json;charset=UTF-8',
  // RFC 6749 5.1/5.2: no cache keeps a token answer, failures included (also those written before routing).
  headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
  render: (error) => ({ error: error.code, error_description: describe(error) ?? oauthTokenErrors.codes[error.code].message }),
  own(error) {
    if (error instanceof OAuthError) {
      const code = error.code === 'unsupported_response_type' ? 'invalid_request' : error.code
      return { code, details: [{ reason: error.description }] }
    }
    return formErrors(error)
  },
}

/** A malformed form, in the words of the OAuth endpoints; undefined leaves other errors to the generic mapping. */
function formErrors(error: unknown): WireError<'invalid_request'> | undefined {
  const e = error as Partial<FastifyError>
  // The token endpoint's own wording for a malformed form; everything else takes the generic mapping.
  if (e.validation) {
    const field = e.validation[0]?.instancePath.replace(/^\//, '')
    // No field: there was no body at all.
    const reason = field ? `${field} must be sent once, as text of at most 2048 characters` : `the body must be ${FORM}`
    return { code: 'invalid_request', details: [{ reason }] }
  }
  if (e.statusCode === 413) return { code: 'invalid_request', details: [{ reason: 'the request body is too large' }] }
  if (e.statusCode === 415) return { code: 'invalid_request', details: [{ reason: `the body must be ${FORM}` }] }
  return undefined
}

/**
 * Revocation (RFC 7009), introspection (RFC 7662) and pushed authorization requests (RFC 9126) answer at the RFCs'
 * statuses: 400, and 401 with a Basic challenge for a failed client authentication (RFC 6749 5.2). The reporting
 * spec's all-500 rule is the token endpoint's alone.
 */
export const oauthEndpointErrors: ErrorFamily<EndpointErrorCode> = {
  name: 'oauth-endpoints',
  codes: {
    invalid_request: { http: 400, message: 'the request is malformed' },
    invalid_client: { http: 401, message: 'client authentication failed' },
    invalid_grant: { http: 400, message: 'the grant is not valid' },
    unauthorized_client: { http: 400, message: 'the client may not do this' },
    unsupported_grant_type: { http: 400, message: 'the grant type is not supported' },
    invalid_scope: { http: 400, message: 'the scope is not valid' },
    unsupported_response_type: { http: 400, message: 'the response type is not supported' },
    invalid_dpop_proof: { http: 400, message: 'the DPoP proof is not valid' },
    temporarily_unavailable: { http: 503, message: 'the server is temporarily unable to handle the request' },
    server_error: { http: 500, message: 'the server could not complete the request' },
  },
  kinds: { ...oauthTokenErrors.kinds, forbidden: 'unauthorized_client' },
  contentType: 'application/json;charset=UTF-8',
  render: (error) => ({ error: error.code, error_description: describe(error) ?? oauthEndpointErrors.codes[error.code].message }),
  own(error) {
    if (error instanceof OAuthError) {
      const headers = error.code === 'invalid_client' ? { 'www-authenticate': 'Basic realm="finapi", charset="UTF-8"' } : undefined
      return { code: error.code, details: [{ reason: error.description }], headers }
    }
    return formErrors(error)
  },
}

const PAGE_MESSAGES = {
  bad_request: 'The request was malformed.',
  server_error: 'Something went wrong on our side. Please try again in a moment.',
  unavailable: 'The service is busy or down for maintenance. Please try again in a moment.',
} as const

/** The authorize pages' family: a person reads these, so the body is an HTML page with a plain sentence. */
export function authorizePageErrors(renderPage: (message: string) => string): ErrorFamily<keyof typeof PAGE_MESSAGES> {
  return {
    name: 'oauth-pages',
    codes: {
      bad_request: { http: 400, message: PAGE_MESSAGES.bad_request },
      server_error: { http: 500, message: PAGE_MESSAGES.server_error },
      unavailable: { http: 503, message: PAGE_MESSAGES.unavailable },
    },
    kinds: {
      unauthenticated: 'bad_request',
      forbidden: 'bad_request',
      not_found: 'bad_request',
      invalid: 'bad_request',
      conflict: 'bad_request',
      not_modified: 'bad_request',
      rate_limited: 'unavailable',
      maintenance: 'unavailable',
      unavailable: 'unavailable',
      timeout: 'unavailable',
      internal: 'server_error',
    },
    contentType: 'text/html; charset=utf-8',
    // Never the details: a page shows no internals and echoes nothing of the request.
    render: (error) => renderPage(PAGE_MESSAGES[error.code]),
  }
}
