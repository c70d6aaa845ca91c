// The client-authenticated endpoints beside the token endpoint (revocation, introspection, pushed authorization
// requests), answering RFC 6749 errors at the RFCs' own statuses, and the server's metadata document (RFC 8414).
import { DPOP_ALGORITHMS } from '../platform/dpop.js'
import type { App } from '../platform/http/app.js'
import { useErrorFamily } from '../platform/http/error-family.js'
import { baseUrlOf, requestUrlOf } from '../platform/http/public-url.js'
import { EndpointError, IntrospectRequest, IntrospectResponse, ParHeaders, ParRequest, ParResponse, RevokeRequest, ServerMetadata } from './endpoint-schemas.js'
import { oauthEndpointErrors } from './errors.js'
import { acceptFormsOnly } from './form.js'
import type { IntrospectionService } from './introspection-service.js'
import type { ParService } from './par-service.js'
import { GRANT_TYPES } from './schemas.js'
import { SCOPE_NAMES } from './scope.js'

const tags = ['oauth']
const FORM = 'application/x-www-form-urlencoded'
const JSON_TYPE = 'application/json;charset=UTF-8'
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none']
const security: { [name: string]: string[] }[] = [{ clientBasic: [] }, {}]
const errors = {
  400: { ...EndpointError, description: 'invalid_request (a missing, repeated or malformed parameter, a body that is not a form), or another RFC 6749 error' },
  401: { ...EndpointError, description: 'invalid_client, with WWW-Authenticate: Basic' },
  500: { ...EndpointError, description: 'server_error' },
  503: { ...EndpointError, description: 'temporarily_unavailable: too many requests naming this client_id (Retry-After), or maintenance' },
}

/** The families these endpoints answer in, for requests refused before a route is chosen. */
export const ENDPOINT_PATHS = ['/oauth2/v3/revoke', '/oauth2/v3/introspect', '/oauth2/v3/par'] as const

export async function clientEndpoints(scope: App, introspection: IntrospectionService, par: ParService, publicUrl: string | undefined) {
  acceptFormsOnly(scope)
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
  })
  useErrorFamily(scope, oauthEndpointErrors, { notFound: false })
  const common = { tags, consumes: [FORM], security }

  scope.post(
    '/revoke',
    {
      schema: {
        ...common,
        operationId: 'revokeToken',
        summary: 'Revoke an access or refresh token (RFC 7009): its whole grant ends, refresh family and access tokens',
        description:
          'Client authentication as at the token endpoint. Answers 200 with an empty body for every token: revoked, already ' +
          'invalid, unknown, or issued to another client (which is left alone). token_type_hint is accepted and not needed.',
        body: RevokeRequest,
        response: { 200: { description: 'Revoked, or nothing to revoke (an empty body)' }, ...errors },
      },
    },
    async (request, reply) => {
      await introspection.revoke(request.body, request.headers.authorization, request.ip)
      return reply.code(200).send()
    },
  )

  scope.post(
    '/introspect',
    {
      schema: {
        ...common,
        operationId: 'introspectToken',
        summary: "Describe one of the calling client's tokens (RFC 7662); confidential clients only",
        description: 'Any token that is unknown, expired, revoked, spent or issued to another client is {"active": false}.',
        body: IntrospectRequest,
        response: { 200: IntrospectResponse, ...errors },
      },
    },
    async (request, reply) => reply.type(JSON_TYPE).send(await introspection.introspect(request.body, request.headers.authorization, request.ip)),
  )

  scope.post(
    '/par',
    {
      schema: {
        ...common,
        operationId: 'pushAuthorizationRequest',
        summary: 'Push an authorization request (RFC 9126) and get a single-use request_uri for the authorize endpoint',
        description:
          'The authorization request\'s parameters, checked as the authorize endpoint checks them, with client authentication. ' +
          'A DPoP header (a proof for POST and this URL) or dpop_jkt binds the authorization code to that key (RFC 9449 10): ' +
          'it is then exchanged only with a proof by the same key. A proof and a dpop_jkt naming different keys, or a bad proof, is invalid_dpop_proof.',
        headers: ParHeaders,
        body: ParRequest,
        response: { 201: ParResponse, ...errors },
      },
    },
    async (request, reply) => {
      const context = { source: request.ip, url: requestUrlOf(request, publicUrl), dpop: request.headers['dpop'] }
      return reply.code(201).type(JSON_TYPE).send(await par.push(request.body, request.headers.authorization, context))
    },
  )
}

/** RFC 8414 metadata, describing exactly what this server does. */
export function metadataRoute(app: App, publicUrl: string | undefined) {
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags,
        operationId: 'authorizationServerMetadata',
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
        description: 'issuer is PUBLIC_URL when configured, else the base URL the request was addressed to (protocol and Host).',
        response: { 200: ServerMetadata },
      },
    },
    async (request, reply) => {
      const issuer = baseUrlOf(request, publicUrl)
      const endpoint = (path: string) => `${issuer}/oauth2/v3/${path}`
      const metadata: ServerMetadata = {
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
      return reply.header('cache-control', 'public, max-age=3600').send(metadata)
    },
  )
}

