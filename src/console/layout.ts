// The console's page frame, its one stylesheet and its one error page. Server-rendered, no script; every value
// escaped by `html` (the consent page's helper). The stylesheet is a static route, versioned by content, so the
// Content-Security-Policy needs no 'unsafe-inline'.
import { createHash } from 'node:crypto'
import { html, type Html } from '../oauth/authorize/html.js'

export { html, raw, Html } from '../oauth/authorize/html.js'

export const STYLESHEET = `:root { color-scheme: light dark;
  --bg: #f4f5f7; --card: #fff; --text: #1b1f24; --muted: #57606a; --line: #d0d7de;
  --accent: #0b57d0; --accent-text: #fff; --error-bg: #fdecea; --error: #a4141b; --focus: #b45309; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --card: #1a1d23; --text: #e6e8eb; --muted: #a0a7b1; --line: #39404a;
    --accent: #8ab4f8; --accent-text: #0f1115; --error-bg: #3b1518; --error: #ffb4ab; --focus: #f59e0b; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; }
.skip:focus { left: 0; }
header { background: var(--card); border-bottom: 1px solid var(--line); padding: .75rem 1rem; }
header .bar { max-width: 64rem; margin: 0 auto; display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; }
header .site { font-weight: 700; margin-right: auto; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
main { max-width: 64rem; margin: 1.5rem auto; padding: 0 1rem; }
section, .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin: 0 0 1.25rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.125rem; margin: 0 0 .75rem; }
a { color: var(--accent); }
label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
input, select { width: 100%; max-width: 28rem; padding: .5rem .625rem; font: inherit; color: inherit;
  background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
input[type=checkbox] { width: auto; }
select[multiple] { min-height: 12rem; }
button { font: inherit; font-weight: 600; padding: .5rem 1rem; border-radius: 6px; cursor: pointer; margin-top: 1rem;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); }
button.secondary { background: transparent; color: var(--text); border-color: var(--line); }
form.inline { display: inline; }
form.inline button { margin-top: 0; }
a:focus-visible, input:focus-visible, select:focus-visible, button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.table { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.muted { color: var(--muted); }
.error { background: var(--error-bg); color: var(--error); border-radius: 8px; padding: .75rem 1rem; }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; }
dl { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .25rem 1rem; margin: 0; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
.chart { margin: 0 0 1rem; } .chart svg { display: block; max-width: 100%; height: auto; background: var(--bg); border-radius: 6px; }
h3 { font-size: 1rem; margin: .75rem 0 .5rem; }
.signin { max-width: 26rem; margin: 3rem auto; }
textarea { width: 100%; padding: .5rem .625rem; font: .875rem/1.4 ui-monospace, monospace; color: inherit; background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
td.path, code { overflow-wrap: anywhere; }
`

const version = (content: string) => createHash('sha256').update(content).digest('hex').slice(0, 12)
export const STYLESHEET_PATH = `/console/assets/console.css?v=${version(STYLESHEET)}`

export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

export const PAGE_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

/** Who is signed in, for the header: absent on the sign-in and signed-out error pages. */
export interface Chrome {
  actingId: string
  csrfToken: string
  /** Shows the operators' entry in the navigation. */
  operator?: boolean
}

/** The navigation: path, label, and whether only operators see it. */
const NAV: [string, string, 'operators'?][] = [
  ['/console', 'Home'],
  ['/console/overview', 'Overview'],
  ['/console/reports', 'Reports'],
  ['/console/subscriptions', 'Subscriptions'],
  ['/console/webhooks', 'Webhooks'],
  ['/console/on-demand', 'On-demand'],
  ['/console/keys', 'API keys'],
  ['/console/requests', 'Request log'],
  ['/console/organization', 'Organization'],
  ['/console/operators', 'Operators', 'operators'],
]

export function page(title: string, body: Html, chrome?: Chrome): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · finapi console</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><div class="bar"><span class="site">finapi console</span>
${chrome
  ? html`<nav aria-label="Console"><ul>${NAV.filter(([, , only]) => !only || chrome.operator).map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul></nav>
<span class="muted">Acting for <strong>${chrome.actingId}</strong></span>
<form class="inline" method="post" action="/console/sign-out">${csrfField(chrome.csrfToken)}<button type="submit" class="secondary">Sign out</button></form>`
  : ''}
</div></header>
<main id="main">
${body}
</main>
</body>
</html>
`.toString()
}

export const csrfField = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}">`

/** The console's one refusal and error page. */
export function errorPage(title: string, message: string, chrome?: Chrome): string {
  return page(title, html`<h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="/console">Back to the console</a></p>`, chrome)
}
