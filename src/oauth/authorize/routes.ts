// GET and POST /oauth2/v3/authorize, the pages where an account holder (or a merchant user) signs in and allows or
// denies a client (HTML, no script), and their assets: a scope of their own, with its own form parser, security
// headers and error pages.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { documentHeaders, withHeaders } from '../../platform/http/documented-headers.js'
import { useErrorFamily } from '../../platform/http/error-family.js'
import { randomSecret } from '../../platform/crypto.js'
import { baseUrlOf } from '../../platform/http/public-url.js'
import { authorizePageErrors } from '../errors.js'
import { acceptFormsOnly, parseQuery, readCookie } from '../form.js'
import { ICON, STYLESHEET, consentPage, contentSecurityPolicy, errorPage, signInPage } from './page.js'
import { AuthorizeForm, AuthorizeQuery } from './schemas.js'
import { CONSENT_TTL_MS, type AuthorizeOutcome, type AuthorizeService } from './service.js'

const tags = ['oauth']
const BROWSER_COOKIE = 'finapi_oauth'
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/

export async function authorizeRoutes(app: App, deps: { authorize: AuthorizeService; publicUrl: string | undefined }): Promise<void> {
  await app.register(async (scope) => authorizePages(scope, deps.authorize, deps.publicUrl))
}

const FORM = 'application/x-www-form-urlencoded'
/** An HTML page at some status. */
const page = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } })
/** A 303 to the client's redirect URI. */
const redirect = (description: string) =>
  withHeaders(Type.Null({ description }), { Location: { description: "The client's redirect URI with the answer in its query", required: true, schema: { format: 'uri' } } })
/** What the pages' error family answers on any page (authorizePageErrors). */
const FAILURE_PAGES = {
  500: page('An unexpected failure: an error page'),
  503: page('Busy or in maintenance: an error page'),
}

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
  scope.addHook('onRoute', documentHeaders({ all: { 'Cache-Control': { description: 'no-store: a page of the flow is never kept', required: true } } }))
  // The page headers on error pages too, those raised before this scope's own hook ran (a missing Host, say).
  useErrorFamily(scope, { ...authorizePageErrors(errorPage), headers: PAGE_HEADERS }, { notFound: false })

  scope.get(
    '/oauth2/v3/authorize',
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
          200: page('The sign-in page'),
          303: redirect(
            'Back to the redirect URI with error, error_description, state and iss (a problem other than the client or redirect URI; ' +
              'a plain request from a client that must push its requests answers error=invalid_request)',
          ),
          400: page('Unknown or revoked client, a redirect URI that is not registered, or a request_uri that is unknown, expired or used: an error page, never a redirect'),
          ...FAILURE_PAGES,
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

  scope.post(
    '/oauth2/v3/authorize',
    {
      // Documentation only: the handler reads the form itself (a repeated or missing field is the page's to answer).
      attachValidation: true,
      schema: {
        tags,
        operationId: 'answerAuthorize',
        summary: "The pages' forms: sign in, then allow or deny (what the browser posts; HTML, no script)",
        description:
          'The sign-in form answers the consent page (or the sign-in page again, at 200, after a failed sign-in); the consent form ' +
          'answers with a redirect to the client carrying code (allow) or error=access_denied (deny), with state and iss. ' +
          'Each form is bound to the browser that opened the page by its cookie, and works once.',
        consumes: [FORM],
        body: AuthorizeForm,
        response: {
          200: page('The consent page after a sign-in, or the sign-in page again after a failed one'),
          303: redirect('Back to the redirect URI with code (allowed), or error=access_denied (denied, or cancelled), with state and iss'),
          400: page('A malformed answer (neither Allow nor Deny), or a client that no longer has access: an error page'),
          403: page('The page expired, was already answered, or was opened in another browser: an error page'),
          429: page('Too many sign-ins for this client from this address, or in all: an error page'),
          ...FAILURE_PAGES,
        },
      },
    },
    async (request, reply) =>
      respond(reply, await authorize.answer((request.body ?? {}) as Record<string, unknown>, browserId(request), { source: request.ip, issuer: baseUrlOf(request, publicUrl) })),
  )

  const immutable = 'public, max-age=31536000, immutable'
  scope.get('/oauth2/v3/assets/consent.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', immutable).type('text/css; charset=utf-8').send(STYLESHEET),
  )
  scope.get('/oauth2/v3/assets/icon.svg', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', immutable).type('image/svg+xml').send(ICON),
  )
}
