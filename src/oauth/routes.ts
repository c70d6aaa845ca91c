// The authorization server's routes, outside /v2 and its gateway: the authorize pages (HTML) and the token
// endpoint (JSON). Each lives in its own scope, with its own form parser and its own error shape.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../platform/http/app.js'
import { isPlainCorrelationId } from '../platform/http/correlation.js'
import { useErrorFamily } from '../platform/http/error-family.js'
import { randomSecret } from '../platform/crypto.js'
import type { AuthorizeOutcome, AuthorizeService } from './authorize-service.js'
import { CONSENT_TTL_MS } from './authorize-service.js'
import { authorizePageErrors, oauthTokenErrors } from './errors.js'
import { acceptFormsOnly, parseQuery, readCookie } from './form.js'
import { ICON, STYLESHEET, consentPage, contentSecurityPolicy, errorPage, signInPage } from './page.js'
import { AuthorizeQuery, CorrelationHeaders, TokenError, TokenRequest, TokenResponse } from './schemas.js'
import type { TokenService } from './token-service.js'
import { baseUrlOf, requestUrlOf } from '../platform/http/public-url.js'
import { clientEndpoints, metadataRoute } from './endpoint-routes.js'
import type { IntrospectionService } from './introspection-service.js'
import type { ParService } from './par-service.js'

export interface OAuthRouteServices {
  oauthAuthorize: AuthorizeService
  oauthTokens: TokenService
  oauthIntrospection: IntrospectionService
  oauthPar: ParService
  /** PUBLIC_URL: the issuer and the URL DPoP proofs name; derived from each request when unset. */
  publicUrl: string | undefined
}

const tags = ['oauth']
const FORM = 'application/x-www-form-urlencoded'
/** Exactly the spec's Content-Type of a token response, without the space Fastify would otherwise put in. */
const TOKEN_CONTENT_TYPE = 'application/json;charset=UTF-8'
const BROWSER_COOKIE = 'finapi_oauth'
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/

export async function oauthRoutes(app: App, services: OAuthRouteServices): Promise<void> {
  await app.register(async (scope) => authorizePages(scope, services.oauthAuthorize, services.publicUrl), { prefix: '/oauth2/v3' })
  await app.register(async (scope) => tokenEndpoint(scope, services.oauthTokens, services.publicUrl), { prefix: '/oauth2/v3' })
  await app.register(async (scope) => clientEndpoints(scope, services.oauthIntrospection, services.oauthPar, services.publicUrl), { prefix: '/oauth2/v3' })
  metadataRoute(app, services.publicUrl)
}

// ---- Authorize pages ---------------------------------------------------------------------------------------

const PAGE_HEADERS = {
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
}

function sendPage(reply: FastifyReply, status: number, body: string, formActionSource?: string) {
  return reply.code(status).header('content-security-policy', contentSecurityPolicy(formActionSource)).type('text/html; charset=utf-8').send(body)
}

function respond(reply: FastifyReply, outcome: AuthorizeOutcome) {
  switch (outcome.kind) {
    case 'error':
      return sendPage(reply, outcome.status, errorPage(outcome.message))
    case 'redirect':
      return reply.redirect(outcome.location, 303)
    case 'sign-in':
      // A failed sign-in is a normal page (200): 401 would need an HTTP authentication challenge this form is not.
      return sendPage(reply, 200, signInPage(outcome.view, outcome), outcome.view.formAction)
    case 'consent':
      return sendPage(reply, 200, consentPage(outcome.view), outcome.view.formAction)
    case 'throttled':
      return sendPage(reply.header('retry-after', String(outcome.retryAfter)), 429, errorPage(outcome.message))
  }
}

function browserId(request: FastifyRequest): string | undefined {
  const value = readCookie(request.headers.cookie, BROWSER_COOKIE)
  return value !== undefined && BROWSER_ID.test(value) ? value : undefined
}

async function authorizePages(scope: App, authorize: AuthorizeService, publicUrl: string | undefined) {
  acceptFormsOnly(scope)
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(PAGE_HEADERS)
  })
  // The page headers on error pages too, those raised before this scope's own hook ran (a missing Host, say).
  useErrorFamily(scope, { ...authorizePageErrors(errorPage), headers: PAGE_HEADERS }, { notFound: false })

  scope.get(
    '/authorize',
    {
      // Checked by the handler (attachValidation): a bad client or redirect URI shows a page, anything else
      // goes back to the client as an OAuth error, which a schema failure could not tell apart.
      attachValidation: true,
      // A GET writes nothing, but a HEAD (link previews, prefetchers) has no use for a sign-in page.
      exposeHeadRoute: false,
      schema: {
        tags,
        operationId: 'authorize',
        summary: 'The page where the account holder signs in and allows or denies a client (HTML, no script)',
        querystring: AuthorizeQuery,
        response: {
          200: { description: 'The sign-in page', content: { 'text/html': { schema: Type.String() } } },
          303: {
            description:
              'Back to the redirect URI with error, error_description, state and iss (a problem other than the client or redirect URI; ' +
              'a plain request from a client that must push its requests answers error=invalid_request)',
          },
          400: {
            description: 'Unknown or revoked client, a redirect URI that is not registered, or a request_uri that is unknown, expired or used: an error page, never a redirect',
            content: { 'text/html': { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      // One browser-binding cookie per browser, reused across tabs; Lax so that it arrives with the top-level
      // navigation from the client and a second flow does not replace the first one's.
      const id = browserId(request) ?? randomSecret(32)
      const secure = request.protocol === 'https' ? '; Secure' : ''
      reply.header('set-cookie', `${BROWSER_COOKIE}=${id}; Path=/oauth2; HttpOnly; SameSite=Lax; Max-Age=${CONSENT_TTL_MS / 1000}${secure}`)
      return respond(reply, await authorize.start(parseQuery(request.url), id, { issuer: baseUrlOf(request, publicUrl) }))
    },
  )

  scope.post('/authorize', { schema: { hide: true } }, async (request, reply) =>
    respond(reply, await authorize.answer((request.body ?? {}) as Record<string, unknown>, browserId(request), { source: request.ip, issuer: baseUrlOf(request, publicUrl) })),
  )

  const immutable = 'public, max-age=31536000, immutable'
  scope.get('/assets/consent.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', immutable).type('text/css; charset=utf-8').send(STYLESHEET),
  )
  scope.get('/assets/icon.svg', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', immutable).type('image/svg+xml').send(ICON),
  )
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
  // Any failure answers 500: the reporting spec gives that status to every token refresh failure.
  useErrorFamily(scope, oauthTokenErrors, { notFound: false })

  scope.post(
    '/token',
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
      const context = { source: request.ip, url: requestUrlOf(request, publicUrl), dpop: request.headers['dpop'] }
      return reply.type(TOKEN_CONTENT_TYPE).send(await tokens.token(request.body, request.headers.authorization, context))
    },
  )
}
