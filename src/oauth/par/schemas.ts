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
    request_uri: Field('never: a pushed request cannot name another (RFC 9126 2.1)'),
    ...ClientFields,
  },
  { description: 'application/x-www-form-urlencoded: the authorization request, and client authentication' },
)
export type ParRequest = Static<typeof ParRequest>

export const ParResponse = Type.Object(
  {
    request_uri: Type.String({ description: 'urn:ietf:params:oauth:request_uri:<random>; send it to the authorize endpoint with client_id, once' }),
    expires_in: Type.Integer({ description: 'Seconds the request_uri can be used: 90' }),
  },
  { additionalProperties: false, description: 'The pushed request was accepted' },
)
export type ParResponse = Static<typeof ParResponse>
