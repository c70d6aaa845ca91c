// The introspection request and answer (RFC 7662).
import { Type, type Static } from 'typebox'
import { ClientFields, Field } from '../endpoint.js'

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
