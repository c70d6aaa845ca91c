// Wire schemas of the authorization server: the token endpoint's form fields and its two answers, and the
// authorize endpoint's query. They validate, serialize (allow-lists) and document in /openapi.json.
import { Type, type Static } from 'typebox'
import { TOKEN_ERROR_CODES } from './errors.js'
import { SCOPES, SCOPE_NAMES } from './scope.js'

const Field = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }))

export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const

/**
 * Every member is optional here: which ones a request needs depends on its grant type, and a missing one is an
 * RFC 6749 `invalid_request` with a description naming it, not a schema failure. A member sent twice arrives as
 * a list and fails this schema (RFC 6749, 3.2: parameters must not be repeated).
 */
export const TokenRequest = Type.Object(
  {
    grant_type: Field(`${GRANT_TYPES.join(', ')}`),
    code: Field('authorization_code: the code from the redirect'),
    redirect_uri: Field('authorization_code: the redirect URI of the authorization request, exactly'),
    redirect_url: Field('the same as redirect_uri (the name the reporting service uses)'),
    code_verifier: Field('authorization_code: the PKCE verifier whose S256 hash was the code_challenge'),
    refresh_token: Field('refresh_token: the latest refresh token of the family'),
    scope: Field(`refresh_token, client_credentials: space-separated subset of the granted or allowed scopes (${SCOPE_NAMES.join(', ')})`),
    client_id: Field('the client; with client_secret for a confidential client, unless sent with HTTP Basic'),
    client_secret: Field('a confidential client\'s secret (client_secret_post); or send HTTP Basic (client_secret_basic)'),
  },
  { description: 'application/x-www-form-urlencoded' },
)
export type TokenRequest = Static<typeof TokenRequest>

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Send as `Authorization: <token>` (banking) or `Authorization: Bearer <token>`' }),
    token_type: Type.Union([Type.Literal('bearer'), Type.Literal('DPoP')], { description: 'DPoP when the tokens are bound to the key of the request\'s DPoP proof (RFC 9449)' }),
    refresh_token: Type.String({ description: 'Single use: each refresh returns the next one' }),
    expires_in: Type.Integer({ description: 'Seconds the access token lives: 900' }),
    scope: Type.String({ description: 'Space-separated scopes of the access token' }),
    refresh_token_expires_in: Type.Integer({ description: 'Seconds the refresh token lives: one year (31536000), restarted by each refresh' }),
    client_status: Type.String({ examples: ['active'] }),
  },
  { additionalProperties: false, description: 'Tokens issued' },
)
export type TokenResponse = Static<typeof TokenResponse>

export const TokenError = Type.Object(
  {
    error: Type.Enum([...TOKEN_ERROR_CODES], { description: 'RFC 6749 error code' }),
    error_description: Type.String({ description: 'What was wrong, for the developer' }),
  },
  { additionalProperties: false, description: 'Any failure of a token request (HTTP 500, as the reporting spec gives it)' },
)

export const CorrelationHeaders = Type.Object({
  dpop: Type.Optional(Type.String({ description: 'A DPoP proof (RFC 9449) for POST and this URL: binds the tokens to its key' })),
  'v-c-client-correlation-id': Type.Optional(
    Type.String({ description: 'Unique per request; echoed on the response when it is a plain token of at most 128 characters' }),
  ),
})

const QueryParam = (description: string) => Type.Optional(Type.String({ description }))

/** Documentation of the authorize query; the handler checks it itself, as a bad value answers in one of two ways. */
export const AuthorizeQuery = Type.Object({
  response_type: QueryParam('code'),
  client_id: QueryParam('The client: for the banking interface, the application key (the sandbox key in the sandbox)'),
  redirect_uri: QueryParam('A registered redirect URI, exactly (the sandbox client: any http URI on localhost or 127.0.0.1)'),
  redirect_url: QueryParam('The same as redirect_uri'),
  scope: QueryParam(`Space-separated: ${SCOPE_NAMES.join(', ')}; every scope the client may have when omitted`),
  state: QueryParam('Returned unchanged with the answer'),
  code_challenge: QueryParam('BASE64URL(SHA-256(code_verifier)), 43 characters; required'),
  code_challenge_method: QueryParam('S256; required'),
  brand: QueryParam('The brand whose account holders sign in (default nab)'),
  lob: QueryParam('The line of business (default nab)'),
  dpop_jkt: QueryParam('RFC 9449 10: the RFC 7638 thumbprint of a DPoP key; the code is then exchanged only with a proof by that key'),
})

const tokenUrl = '/oauth2/v3/token'

/** The OpenAPI security schemes of the authorization server, added to the document's components. */
export const OAUTH_SECURITY_SCHEMES = {
  clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client_id and client_secret (client_secret_basic)' },
  oauth2: {
    type: 'oauth2',
    description: 'Authorization code with PKCE (S256), allowed by an account holder (or, for a client of an organization, a merchant user); client_credentials for confidential clients. Refresh tokens rotate on every use.',
    flows: {
      authorizationCode: { authorizationUrl: '/oauth2/v3/authorize', tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
      clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
    },
  },
}
