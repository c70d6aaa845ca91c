// The authorization server's metadata document (RFC 8414).
import { Type, type Static } from 'typebox'

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
