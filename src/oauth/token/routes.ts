// POST /oauth2/v3/token, the token endpoint (JSON): a scope of its own, with its own form parser and RFC 6749 errors.
import { isPlainCorrelationId } from '../../platform/http/correlation.js'
import type { App } from '../../platform/http/app.js'
import { documentHeaders, type HeaderRules } from '../../platform/http/documented-headers.js'
import { useErrorFamily } from '../../platform/http/error-family.js'
import { requestUrlOf } from '../../platform/http/public-url.js'
import { nameClientAsCaller } from '../endpoint.js'
import { oauthTokenErrors } from '../errors.js'
import { acceptFormsOnly } from '../form.js'
import { CorrelationHeaders, TokenError, TokenRequest, TokenResponse } from './schemas.js'
import type { TokenService } from './service.js'

const tags = ['oauth']
const FORM = 'application/x-www-form-urlencoded'
/** Exactly the spec's Content-Type of a token response, without the space Fastify would otherwise put in. */
const TOKEN_CONTENT_TYPE = 'application/json;charset=UTF-8'

export async function tokenRoutes(app: App, deps: { tokens: TokenService; publicUrl: string | undefined }): Promise<void> {
  await app.register(async (scope) => tokenEndpoint(scope, deps.tokens, deps.publicUrl))
}

/** The headers of every token answer (RFC 6749 5.1), and the throttle's Retry-After on a temporarily_unavailable. */
const TOKEN_HEADERS: HeaderRules = {
  all: {
    'Cache-Control': { description: 'no-store: no cache keeps a token answer (with Pragma: no-cache)', required: true },
    'V-C-Client-Correlation-Id': { description: "The request's v-c-client-correlation-id when it is a plain token of at most 128 characters, else the X-CorrelationID", required: true },
  },
  500: { 'Retry-After': { description: 'Seconds to wait: temporarily_unavailable, when too many requests named this client_id', schema: { pattern: '^[0-9]+$' } } },
}

// ---- Token endpoint ----------------------------------------------------------------------------------------

async function tokenEndpoint(scope: App, tokens: TokenService, publicUrl: string | undefined) {
  acceptFormsOnly(scope)
  scope.addHook('onRequest', async (request, reply) => {
    const sent = request.headers['v-c-client-correlation-id']
    reply.headers({
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'v-c-client-correlation-id': isPlainCorrelationId(sent) ? sent : request.id,
    })
  })
  scope.addHook('onRoute', documentHeaders(TOKEN_HEADERS))
  // Any failure answers 500: the reporting spec gives that status to every token refresh failure.
  useErrorFamily(scope, oauthTokenErrors, { notFound: false })

  scope.post(
    '/oauth2/v3/token',
    {
      schema: {
        tags,
        operationId: 'token',
        summary: 'Exchange an authorization code, refresh a token, or get a client_credentials token',
        description:
          'Form-encoded. Client authentication: HTTP Basic (client_secret_basic) or client_id and client_secret in the body; ' +
          'a public client sends client_id only. grant_type=authorization_code needs code, redirect_uri and code_verifier; ' +
          'refresh_token needs refresh_token (each refresh returns a new one; presenting a used one revokes the whole grant); ' +
          'client_credentials is for confidential clients. A DPoP header (RFC 9449 proof, ES256, or Ed25519 as EdDSA or Ed25519) binds the tokens to its key ' +
          '(token_type DPoP; required for clients registered with --dpop, and for refreshing a bound grant). ' +
          'Every failure answers HTTP 500 with an RFC 6749 error (temporarily_unavailable with Retry-After when a client_id is throttled). ' +
          'The v-c-client-correlation-id header is echoed.',
        consumes: [FORM],
        headers: CorrelationHeaders,
        body: TokenRequest,
        security: [{ clientBasic: [] }, {}],
        response: { 200: TokenResponse, 500: TokenError },
      },
    },
    async (request, reply) => {
      const context = { source: request.ip, url: requestUrlOf(request, publicUrl), dpop: request.headers['dpop'], authenticated: nameClientAsCaller(request) }
      return reply.type(TOKEN_CONTENT_TYPE).send(await tokens.token(request.body, request.headers.authorization, context))
    },
  )
}
