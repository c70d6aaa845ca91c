// Wire schemas of the client-authenticated endpoints beside the token endpoint (revocation RFC 7009,
// introspection RFC 7662, pushed authorization requests RFC 9126) and of the server's metadata (RFC 8414).
import { Type, type Static } from 'typebox'
import { ENDPOINT_ERROR_CODES } from './errors.js'
import { SCOPE_NAMES } from './scope.js'

const Field = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }))
const ClientFields = {
  client_id: Field('the client; with client_secret for a confidential client, unless sent with HTTP Basic'),
  client_secret: Field("a confidential client's secret (client_secret_post); or send HTTP Basic (client_secret_basic)"),
}

export const RevokeRequest = Type.Object(
  {
    token: Field('the access or refresh token to revoke'),
    token_type_hint: Field('access_token or refresh_token; optional, and not needed: both kinds are looked up'),
    ...ClientFields,
  },
  { description: 'application/x-www-form-urlencoded' },
)
export type RevokeRequest = Static<typeof RevokeRequest>

export const IntrospectRequest = Type.Object(
  {
    token: Field('the access or refresh token to describe'),
    token_type_hint: Field('access_token or refresh_token; optional'),
    ...ClientFields,
  },
  { description: 'application/x-www-form-urlencoded' },
)
export type IntrospectRequest = Static<typeof IntrospectRequest>

export const IntrospectResponse = Type.Object(
  {
    active: Type.Boolean({ description: 'false for a token that is unknown, expired, revoked, spent or another client\'s, with nothing else' }),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String({ description: 'The client_id as the caller presented it' })),
    token_type: Type.Optional(Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')], { description: 'Access tokens only' })),
    exp: Type.Optional(Type.Integer({ description: 'Expiry, seconds since the epoch' })),
    iat: Type.Optional(Type.Integer({ description: 'Issued at, seconds since the epoch' })),
    sub: Type.Optional(Type.String({ description: 'The account holder who granted it; absent for a client_credentials token' })),
    cnf: Type.Optional(Type.Object({ jkt: Type.String({ description: 'RFC 7638 thumbprint of the DPoP key the token is bound to' }) }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'RFC 7662 introspection response' },
)
export type IntrospectResponse = Static<typeof IntrospectResponse>

export const ParRequest = Type.Object(
  {
    response_type: Field('code'),
    redirect_uri: Field('a registered redirect URI, exactly'),
    redirect_url: Field('the same as redirect_uri'),
    scope: Field(`space-separated: ${SCOPE_NAMES.join(', ')}`),
    state: Field('returned unchanged with the answer'),
    code_challenge: Field('BASE64URL(SHA-256(code_verifier))'),
    code_challenge_method: Field('S256'),
    brand: Field('the brand whose account holders sign in (default nab)'),
    lob: Field('the line of business (default nab)'),
    dpop_jkt: Field('RFC 9449 10: the RFC 7638 thumbprint (43 base64url characters) of the DPoP key the code is to be bound to'),
    request_uri: Field('never: a pushed request cannot name another (RFC 9126 2.1)'),
    ...ClientFields,
  },
  { description: 'application/x-www-form-urlencoded: the authorization request, and client authentication' },
)
export type ParRequest = Static<typeof ParRequest>

export const ParHeaders = Type.Object({
  dpop: Type.Optional(Type.String({ description: 'A DPoP proof (RFC 9449) for POST and this URL: binds the authorization code to its key' })),
})

export const ParResponse = Type.Object(
  {
    request_uri: Type.String({ description: 'urn:ietf:params:oauth:request_uri:<random>; send it to the authorize endpoint with client_id, once' }),
    expires_in: Type.Integer({ description: 'Seconds the request_uri can be used: 90' }),
  },
  { additionalProperties: false, description: 'The pushed request was accepted' },
)
export type ParResponse = Static<typeof ParResponse>

export const EndpointError = Type.Object(
  {
    error: Type.Enum([...ENDPOINT_ERROR_CODES], { description: 'RFC 6749 error code' }),
    error_description: Type.String({ description: 'What was wrong, for the developer' }),
  },
  { additionalProperties: false, description: 'RFC 6749 5.2 error' },
)

const Strings = Type.Array(Type.String())
export const ServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    introspection_endpoint: Type.String(),
    pushed_authorization_request_endpoint: Type.String(),
    require_pushed_authorization_requests: Type.Boolean(),
    scopes_supported: Strings,
    response_types_supported: Strings,
    response_modes_supported: Strings,
    grant_types_supported: Strings,
    code_challenge_methods_supported: Strings,
    token_endpoint_auth_methods_supported: Strings,
    revocation_endpoint_auth_methods_supported: Strings,
    introspection_endpoint_auth_methods_supported: Strings,
    authorization_response_iss_parameter_supported: Type.Boolean(),
    dpop_signing_alg_values_supported: Strings,
    service_documentation: Type.String(),
  },
  { additionalProperties: false, description: 'RFC 8414 authorization server metadata' },
)
export type ServerMetadata = Static<typeof ServerMetadata>
