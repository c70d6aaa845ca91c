// What the authorization server says of itself (RFC 8414): exactly what this server does.
import { DPOP_ALGORITHMS } from '../../platform/dpop.js'
import { SCOPE_NAMES } from '../scope.js'
import { GRANT_TYPES } from '../token/schemas.js'
import type { ServerMetadata } from './schemas.js'

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none']

/** The metadata document for the issuer (PUBLIC_URL, or the base URL a request was addressed to). */
export function serverMetadata(issuer: string): ServerMetadata {
  const endpoint = (path: string) => `${issuer}/oauth2/v3/${path}`
  return {
    issuer,
    authorization_endpoint: endpoint('authorize'),
    token_endpoint: endpoint('token'),
    revocation_endpoint: endpoint('revoke'),
    introspection_endpoint: endpoint('introspect'),
    pushed_authorization_request_endpoint: endpoint('par'),
    require_pushed_authorization_requests: false,
    scopes_supported: [...SCOPE_NAMES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    service_documentation: `${issuer}/docs`,
  }
}
