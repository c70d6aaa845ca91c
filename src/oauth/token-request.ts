// Reading a token request: its form fields (an empty value counts as absent, RFC 6749 3.1) and the client's
// credentials, from HTTP Basic (client_secret_basic) or the body (client_secret_post), never both.
import { OAuthError } from './errors.js'
import type { ClientCredentials } from './clients/service.js'
import type { TokenRequest } from './token/schemas.js'

/** The form's fields with empty values dropped. */
export function presentFields<T extends object = TokenRequest>(body: T | undefined): T {
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(body ?? {})) if (typeof value === 'string' && value !== '') fields[name] = value
  return fields as T
}

/** RFC 6749 2.3.1: the Basic user name and password are form-urlencoded before base64. */
function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '))
}

/** The Basic password form-decoded, and as sent where that differs (see ClientCredentials.rawSecret). */
function basicCredentials(header: string): ClientCredentials {
  const encoded = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header)?.[1]
  const decoded = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) throw new OAuthError('invalid_client', 'malformed HTTP Basic client credentials')
  const raw = decoded.slice(colon + 1)
  let clientId: string
  try {
    clientId = formDecode(decoded.slice(0, colon))
  } catch {
    throw new OAuthError('invalid_client', 'malformed HTTP Basic client credentials')
  }
  // Looked up in a database whose text cannot hold U+0000 (PostgreSQL); form fields are refused the same way.
  if (clientId.includes('\u0000') || raw.includes('\u0000') || raw.includes('%00')) throw new OAuthError('invalid_client', 'malformed HTTP Basic client credentials')
  let secret: string
  try {
    secret = formDecode(raw)
  } catch {
    // Not form-encoded at all (a raw `%`): the password as sent is the only reading.
    return { clientId, secret: raw }
  }
  return secret === raw ? { clientId, secret } : { clientId, secret, rawSecret: raw }
}

/** The form fields that authenticate a client (client_secret_post), on every client-authenticated endpoint. */
export type ClientFields = Pick<TokenRequest, 'client_id' | 'client_secret'>

/** The client's claimed identity and secret; an Authorization header of another scheme is not client authentication. */
export function clientCredentials(fields: ClientFields, authorization: string | undefined): ClientCredentials {
  if (authorization !== undefined && /^Basic\b/i.test(authorization)) {
    const basic = basicCredentials(authorization)
    if (fields.client_secret !== undefined) throw new OAuthError('invalid_request', 'send the client secret once: in HTTP Basic or in the body, not both')
    if (fields.client_id !== undefined && fields.client_id !== basic.clientId) throw new OAuthError('invalid_request', 'client_id differs from the HTTP Basic user name')
    return basic
  }
  if (fields.client_id === undefined) throw new OAuthError('invalid_client', 'client authentication failed: client_id is missing')
  return { clientId: fields.client_id, secret: fields.client_secret }
}

/** Tokens longer than this are nobody's: revocation and introspection answer them without a lookup. */
export const MAX_TOKEN_LENGTH = 512

/** The `token` member revocation and introspection need. */
export function tokenOf(fields: { token?: string }): string {
  if (fields.token === undefined) throw new OAuthError('invalid_request', 'token is required')
  return fields.token
}
