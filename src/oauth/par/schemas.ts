// The pushed authorization request and its answer (RFC 9126).
import { Type, type Static } from 'typebox'
import { ClientFields, Field } from '../endpoint.js'
import { SCOPE_NAMES } from '../scope.js'

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
