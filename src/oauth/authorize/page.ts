// The authorize endpoint's pages: sign-in, consent and error. Server-rendered, no script at all, every value
// escaped by `html`; the stylesheet is a static route so the Content-Security-Policy needs no 'unsafe-inline'.
import { createHash } from 'node:crypto'
import type { PageView } from './service.js'
import { html, raw, type Html } from './html.js'

export const STYLESHEET = `:root {
  color-scheme: light dark;
  --bg: #f4f5f7; --card: #fff; --text: #1b1f24; --muted: #57606a; --line: #d0d7de;
  --accent: #0b57d0; --accent-text: #fff; --error-bg: #fdecea; --error: #a4141b; --focus: #f59e0b;
  --sandbox-bg: #fff8db; --sandbox-line: #e3c455;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --card: #1a1d23; --text: #e6e8eb; --muted: #a0a7b1; --line: #39404a;
    --accent: #8ab4f8; --accent-text: #0f1115; --error-bg: #3b1518; --error: #ffb4ab;
    --sandbox-bg: #2e2810; --sandbox-line: #7a6520; }
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; padding: 1.5rem;
  background: var(--bg); color: var(--text);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { width: 100%; max-width: 26rem; background: var(--card); border: 1px solid var(--line); border-radius: 12px;
  padding: 2rem 1.75rem; box-shadow: 0 1px 3px rgb(0 0 0 / 8%); }
.site { margin: 0 0 1.25rem; font-size: .875rem; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); }
h1 { margin: 0 0 .75rem; font-size: 1.375rem; line-height: 1.3; }
p { margin: 0 0 1rem; }
.muted { color: var(--muted); font-size: .9375rem; }
label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
input[type=text], input[type=password] { width: 100%; padding: .625rem .75rem; font: inherit; color: inherit;
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
button { font: inherit; font-weight: 600; padding: .625rem 1.25rem; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); }
button.secondary { background: transparent; color: var(--text); border-color: var(--line); }
input:focus-visible, button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.actions { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1.5rem; }
form > button[type=submit]:not(.secondary) { width: 100%; margin-top: 1.5rem; }
form > button.secondary { width: 100%; margin-top: .75rem; }
.sandbox { background: var(--sandbox-bg); border: 1px solid var(--sandbox-line); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1.25rem; font-size: .9375rem; }
.sandbox code { font-size: 1rem; font-weight: 600; }
.error { background: var(--error-bg); color: var(--error); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
ul.scopes { margin: 0 0 1rem; padding-left: 1.25rem; }
ul.scopes li { margin: .25rem 0; }
`

/** The pages' icon; without one the browser asks for /favicon.ico, which does not exist. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b57d0"/><path d="M11 25V9h10v3.2h-6.4v3.3h5.8v3.1h-5.8V25z" fill="#fff"/></svg>`

const version = (content: string) => createHash('sha256').update(content).digest('hex').slice(0, 12)
/** Versioned by content, so they can be cached for a year and still change with a release. */
export const STYLESHEET_PATH = `/oauth2/v3/assets/consent.css?v=${version(STYLESHEET)}`
export const ICON_PATH = `/oauth2/v3/assets/icon.svg?v=${version(ICON)}`
const FORM_ACTION = '/oauth2/v3/authorize'

/**
 * The page's policy: nothing but our stylesheet and our own form target, plus the client's redirect origin when
 * the form can end in a redirect there (Chromium applies form-action to the redirect after a submission).
 */
export function contentSecurityPolicy(formActionSource?: string): string {
  const formAction = ["'self'", formActionSource].filter(Boolean).join(' ')
  return `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`
}

function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · finapi</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
</head>
<body>
<main>
<p class="site">finapi</p>
${body}
</main>
</body>
</html>
`.toString()
}

const subject = (view: PageView) => (view.audience === 'merchant' ? 'your merchant reports' : 'your banking')

/** Sandbox mode: what this is, and the published test sign-in, so nobody has to look it up. */
const sandboxNote = (view: PageView, signIn: boolean) =>
  view.sandboxSignIn
    ? html`<p class="sandbox" role="note"><strong>Sandbox</strong>: test data only.${signIn ? html` Sign in as <code>${view.sandboxSignIn.username}</code> with the password <code>${view.sandboxSignIn.password}</code>.` : ''}</p>`
    : ''

/** How long access lasts and how to take it back, in words: the refresh token lives a year (token/service.ts). */
const lasting = (view: PageView) =>
  html`<p class="muted">Access lasts up to a year while ${view.clientName} keeps using it. You can withdraw it at any time: disconnect in ${view.clientName}, or ask ${view.audience === 'merchant' ? 'your administrator' : 'your bank'} to withdraw it.</p>`

const csrf = (view: PageView) => html`<input type="hidden" name="csrf_token" value="${view.csrfToken}">`

export function signInPage(view: PageView, options: { failed: boolean; username?: string }): string {
  const errorId = 'sign-in-error'
  const describedBy = options.failed ? raw(` aria-describedby="${errorId}" aria-invalid="true"`) : raw('')
  return layout(
    'Sign in',
    html`${sandboxNote(view, true)}<h1>Sign in to continue</h1>
<p><strong>${view.clientName}</strong> is asking for access to ${subject(view)}. Sign in${view.audience === 'merchant' ? ' with your merchant user' : ''} to see what it asks for.</p>
${options.failed ? html`<p class="error" id="${errorId}" role="alert">That username and password did not work. Check them and try again.</p>` : ''}
<form method="post" action="${FORM_ACTION}">
${csrf(view)}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${options.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="128"${describedBy}${options.failed ? '' : raw(' autofocus')}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="128"${describedBy}${options.failed ? raw(' autofocus') : ''}>
<button type="submit">Sign in</button>
<button type="submit" name="decision" value="cancel" class="secondary" formnovalidate>Cancel and go back to ${view.clientName}</button>
</form>`,
  )
}

export function consentPage(view: PageView): string {
  return layout(
    'Allow access',
    html`${sandboxNote(view, false)}<h1>Allow ${view.clientName} to access ${subject(view)}?</h1>
<p id="scopes-intro"><strong>${view.clientName}</strong> will be able to:</p>
<ul class="scopes" aria-labelledby="scopes-intro">
${view.scopes.map((s) => html`<li>${s.description}</li>`)}
</ul>
${lasting(view)}
<p class="muted">Either way, you go back to ${view.clientName} at ${view.site}.</p>
<form method="post" action="${FORM_ACTION}">
${csrf(view)}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button>
</div>
</form>`,
  )
}

export function errorPage(message: string): string {
  return layout(
    'Cannot continue',
    html`<h1>This request cannot continue</h1>
<p class="error" role="alert">${message}</p>
<p class="muted">Close this page and go back to the application you came from.</p>`,
  )
}
