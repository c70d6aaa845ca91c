// The revocation request (RFC 7009), form-encoded.
import { Type, type Static } from 'typebox'
import { ClientFields, Field } from '../endpoint.js'

export const RevokeRequest = Type.Object(
  {
    token: Field('the access or refresh token to revoke'),
    token_type_hint: Field('access_token or refresh_token; optional, and not needed: both kinds are looked up'),
    ...ClientFields,
  },
  { description: 'application/x-www-form-urlencoded' },
)
export type RevokeRequest = Static<typeof RevokeRequest>
