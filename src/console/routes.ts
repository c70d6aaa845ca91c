// /console: the scope's hooks (page headers, forms only, the session, the CSRF check), the stylesheet, sign-in,
// sign-out, the home page and the choice of organization. The report and subscription pages are in their folders.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../platform/http/app.js'
import { acceptFormsOnly } from '../oauth/form.js'
import { forbidden, notFound, unauthenticated } from '../platform/errors.js'
import { randomSecret } from '../platform/crypto.js'
import { PRE_COOKIE, SESSION_COOKIE, chrome, cookie, cookieOf, field, sendPage, session } from './http.js'
import { PAGE_HEADERS, STYLESHEET, csrfField, errorPage, html, page } from './layout.js'
import type { ConsoleSessionService } from './sessions/service.js'

/** Paths a signed-out browser may reach. */
const PUBLIC = new Set(['/console/sign-in', '/console/assets/console.css'])

export interface ConsoleRouteDeps {
  sessions: ConsoleSessionService
  /** Sandbox mode only: the published merchant user, shown on the sign-in page. */
  sandboxSignIn?: { username: string; password: string }
  /** The absolute session lifetime, for the cookie's Max-Age. */
  maxAgeSeconds: number
}

export async function consoleBase(scope: App, deps: ConsoleRouteDeps): Promise<void> {
  const { sessions } = deps
  acceptFormsOnly(scope)
  // Pages for people, not API operations: none is in the OpenAPI document.
  scope.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true }
  })
  scope.decorateRequest('consoleSession', undefined)
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(PAGE_HEADERS)
  })
  scope.addHook('preHandler', async (request, reply) => {
    const path = request.routeOptions.url ?? ''
    if (PUBLIC.has(path)) return
    const found = await sessions.resolve(cookieOf(request, SESSION_COOKIE))
    if (!found) {
      // A page asked for while signed out leads to the sign-in page; a form posted is refused (401).
      if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect('/console/sign-in', 303)
      throw unauthenticated()
    }
    // The operators' pages are not there for anyone else, whatever the form carries (operators/access.ts).
    if (path.startsWith('/console/operators') && !found.operator) throw notFound()
    if (request.method === 'POST' && !sessions.csrfMatches(found, ((request.body ?? {}) as Record<string, unknown>)['csrf_token'])) throw forbidden()
    request.consoleSession = found
  })

  scope.get('/console/assets/console.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=31536000, immutable').type('text/css; charset=utf-8').send(STYLESHEET),
  )

  const signInPage = (token: string, failed: boolean, username = '') =>
    page(
      'Sign in',
      html`<div class="signin card"><h1>Sign in to the console</h1>
${deps.sandboxSignIn ? html`<p class="notice" role="note"><strong>Sandbox</strong>: sign in as <code>${deps.sandboxSignIn.username}</code> with the password <code>${deps.sandboxSignIn.password}</code>.</p>` : ''}
${failed ? html`<p class="error" id="sign-in-error" role="alert">That username and password did not work. Check them and try again.</p>` : ''}
<form method="post" action="/console/sign-in">${csrfField(token)}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${username}" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="128">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="128">
<button type="submit">Sign in</button>
</form></div>`,
    )

  /** The sign-in form's CSRF token: bound to a pre-session cookie (login CSRF), set anew with each form. */
  const preToken = (reply: FastifyReply, request: FastifyRequest) => {
    const pre = randomSecret(32)
    reply.header('set-cookie', cookie(request, PRE_COOKIE, pre, 3600))
    return sessions.preSignInToken(pre)
  }

  scope.get('/console/sign-in', async (request, reply) => {
    if (await sessions.resolve(cookieOf(request, SESSION_COOKIE))) return reply.redirect('/console', 303)
    return sendPage(reply, signInPage(preToken(reply, request), false))
  })

  scope.post('/console/sign-in', async (request, reply) => {
    const pre = cookieOf(request, PRE_COOKIE)
    if (!pre || !sessions.preSignInMatches(pre, field(request, 'csrf_token'))) throw forbidden()
    const username = field(request, 'username')
    const outcome = await sessions.signIn(username, field(request, 'password'), request.ip)
    if (outcome.kind === 'throttled') {
      return sendPage(reply.header('retry-after', String(outcome.retryAfter)), errorPage('Too many attempts', `Too many sign-in attempts. Wait ${outcome.retryAfter} seconds and try again.`), 429)
    }
    if (outcome.kind === 'failed') return sendPage(reply, signInPage(preToken(reply, request), true, username.slice(0, 128)))
    reply.header('set-cookie', [cookie(request, SESSION_COOKIE, outcome.token, deps.maxAgeSeconds), cookie(request, PRE_COOKIE, '', 0)])
    return reply.redirect('/console', 303)
  })

  scope.post('/console/sign-out', async (request, reply) => {
    await sessions.signOut(session(request))
    reply.header('set-cookie', cookie(request, SESSION_COOKIE, '', 0))
    return reply.redirect('/console/sign-in', 303)
  })

  scope.get('/console', async (request, reply) => {
    const s = session(request)
    return sendPage(
      reply,
      page(
        'Home',
        html`<h1>Merchant console</h1>
<section><h2>Acting for ${s.actingId}</h2><p>Everything you see and do here is for this organization, as the API's <code>organizationId</code> would be. <a href="/console/organization">Choose another organization</a>.</p></section>
<section><h2>Pages</h2><ul>
<li><a href="/console/overview">Overview</a>: the last 30 days of transactions and net funding, by day and currency</li>
<li><a href="/console/reports">Reports</a>: search, details, downloads and one-time reports</li>
<li><a href="/console/subscriptions">Subscriptions</a>: scheduled reports, with each next run</li>
<li><a href="/console/webhooks">Webhooks</a>: subscriptions, test sends, the delivery log with replays, and signing keys</li>
<li><a href="/console/on-demand">On-demand reports</a>: purchases and refunds a page at a time (and as CSV), net funding, batch summaries, conversions, notifications of change</li>
${deps.sandboxSignIn ? html`<li><a href="/console/sandbox">Sandbox</a>: your reporting clock, sample events, and your sandbox data</li>` : ''}
<li><a href="/console/keys">API keys</a>: reporting keys and JWT certificates; create and revoke</li>
<li><a href="/console/requests">API request log</a>: the organization's API calls, and one found by its correlation id</li>
${s.operator ? html`<li><a href="/console/operators">Operators</a>: every organization, and their merchant users, reporting keys and OAuth clients</li>` : ''}
</ul></section>`,
        chrome(s),
      ),
    )
  })

  scope.get('/console/organization', async (request, reply) => {
    const s = session(request)
    const choices = await sessions.choices(s)
    return sendPage(
      reply,
      page(
        'Organization',
        html`<h1>Act for an organization</h1>
<form method="post" action="/console/organization">${csrfField(s.csrfToken)}
<fieldset><legend>Your organization, or one below it</legend>
${choices.map(
  (o, i) => html`<div><input type="radio" id="org-${i}" name="organizationId" value="${o.id}"${o.id === s.actingId ? html` checked` : ''}> <label for="org-${i}" class="inline-label">${o.name} (${o.id}, ${o.type})</label></div>`,
)}
</fieldset>
<button type="submit">Act for this organization</button></form>`,
        chrome(s),
      ),
    )
  })

  scope.post('/console/organization', async (request, reply) => {
    await sessions.choose(session(request), field(request, 'organizationId'))
    return reply.redirect('/console', 303)
  })
}
