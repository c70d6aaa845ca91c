// The OAuth error codes (RFC 6749, 4.1.2.1 and 5.2) as one closed set. The token endpoint answers every one of
// them with HTTP 500, as the reporting spec says a token refresh failure does; the authorize endpoint carries them
// back to the client's redirect URI.

export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'server_error',
] as const
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number]

export const AUTHORIZE_ERROR_CODES = ['invalid_request', 'unsupported_response_type', 'invalid_scope', 'access_denied', 'server_error'] as const
export type AuthorizeErrorCode = (typeof AUTHORIZE_ERROR_CODES)[number]

/** A token request the server refuses; `description` is for the developer and never carries internals. */
export class OAuthError extends Error {
  override name = 'OAuthError'
  constructor(
    readonly code: TokenErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`)
  }
}
