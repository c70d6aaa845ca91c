// The failures tour: for every operation of the document, the refusals its family answers — bad input, a missing
// or unknown credential, an unknown resource or organization, an Accept the operation cannot honour (no operation
// answers 406: each sends its own format, so the answer must still be documented), and the throttles' 429 (503 and
// 500 at the OAuth endpoints), reached cheaply from source addresses of their own under the tight limits the test
// app is started with (ERROR_TOUR_ENV). Each answer is checked as it arrives (Tour.send).
import { randomUUID } from 'node:crypto'
import { CUSTOMER_1, loginBody } from './banking.js'
import { REDIRECT, csrfFrom, pkce } from './oauth.js'
import type { Operation } from './openapi-check.js'
import { asClient, type Tour } from './openapi-tour.js'
import { MERCHANT_CLIENT, PARTNER_CLIENT } from './reporting-oauth.js'

/** The limits the tour's app runs under: low enough for a flood of a few dozen requests to reach each throttle. */
export const ERROR_TOUR_ENV = { RATE_LIMIT_PER_MINUTE: '60', OAUTH_CLIENT_CALLS_PER_MINUTE: '20', OAUTH_SIGN_IN_PER_MINUTE: '4' }
const LIMITS = { banking: 60, clientCalls: 20, signIns: 4 }

const UNACCEPTABLE = { accept: 'application/x-unacceptable' }
const MERCHANT_PREFIXES = ['/reporting/', '/sandbox/', '/notification-subscriptions/', '/kms/', '/webhooks/', '/nrtf/']
const OAUTH_ENDPOINTS = ['/oauth2/v3/token', '/oauth2/v3/revoke', '/oauth2/v3/introspect', '/oauth2/v3/par']

/** A success tour's request of an operation: the base each failure probe changes one thing of. */
interface Base {
  method: string
  path: string
  op: Operation
  url: string
  body?: string
}

const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`
/** The URL with each path parameter replaced by a well-formed value that names nothing. */
function unknownResource(base: Base): string {
  const [path, query] = base.url.split('?') as [string, string | undefined]
  const template = base.path.split('/')
  const segments = path.split('/').map((segment, i) => (template[i]?.startsWith('{') ? (UNKNOWN[template[i]!.slice(1, -1)] ?? 'unknown') : segment))
  return segments.join('/') + (query === undefined ? '' : `?${query}`)
}
const UNKNOWN: Record<string, string> = { reportDefinitionName: 'NoSuchDefinition', reportName: 'No_Such_Report', reportId: randomUUID(), webhookId: 'no-such-webhook', notificationId: 'no-such-notification', organizationId: 'othermerchant', accountToken: 'no-such-account' }

/** The first answered request of each operation in the success tour. */
function bases(tour: Tour): Base[] {
  const found = new Map<string, Base>()
  for (const x of tour.exchanges) {
    const o = x.recorded && x.status < 400 ? tour.check.operationOf(x.method, x.url) : undefined
    const key = o && `${o.method} ${o.path}`
    if (o && !found.has(key!)) found.set(key!, { method: o.method, path: o.path, op: o.op, url: x.url, body: x.requestBody })
  }
  return [...found.values()]
}

export async function errorTour(tour: Tour): Promise<void> {
  const all = bases(tour)
  for (const base of all.filter((b) => MERCHANT_PREFIXES.some((p) => b.path.startsWith(p)))) await merchantErrors(tour, base)
  await bankingErrors(tour, all.filter((b) => b.path.startsWith('/v2/')))
  await oauthErrors(tour)
  for (const base of all.filter((b) => b.method === 'GET' && !b.path.startsWith('/v2/') && !MERCHANT_PREFIXES.some((p) => b.path.startsWith(p)))) {
    await tour.send('GET', base.url, { headers: UNACCEPTABLE })
  }
}

/** Unsigned; an organization unknown or malformed; an unknown resource; a malformed body; an unacceptable Accept. */
async function merchantErrors(tour: Tour, base: Base) {
  const { method, url, body } = base
  await tour.send(method, url, { headers: { 'content-type': body === undefined ? undefined : 'application/json' }, body })
  await tour.signed(method, withQuery(url, 'organizationId=nosuchorganization'), { body })
  await tour.signed(method, withQuery(url, 'organizationId=not%20an%20id!'), { body })
  if (base.path.includes('{')) await tour.signed(method, unknownResource(base), { body })
  if (body !== undefined) await tour.signed(method, url, { body: '{"truncated":' })
  if (method === 'GET') await tour.signed(method, url, { headers: UNACCEPTABLE })
}

/** No key, an unknown key, no version, no or a bad token, bad bodies, an unacceptable Accept; then the key's throttle. */
async function bankingErrors(tour: Tour, all: Base[]) {
  const login = await tour.bank('POST', '/v2/auth?v=1', { body: loginBody(CUSTOMER_1) })
  const token = login.json.loginResponse.tokens[0].value as string
  const signIn = (b: Base) => b.method === 'POST' && b.path === '/v2/auth'
  for (const b of all) {
    const body: unknown = b.body === undefined ? undefined : JSON.parse(b.body)
    await tour.bank(b.method, b.url, { token, body, headers: { 'x-svc-key': undefined } })
    await tour.bank(b.method, b.url, { token, body, headers: { 'x-svc-key': 'no-such-application-key' } })
    await tour.bank(b.method, b.url.replace('?v=1', ''), { token, body })
    await tour.bank(b.method, b.url.replace('v=1', 'v=2'), { token, body })
    if (!signIn(b)) {
      await tour.bank(b.method, b.url, { body })
      await tour.bank(b.method, b.url, { token: 'not-a-token', body })
    }
    if (b.body !== undefined) {
      await tour.bank(b.method, b.url, { token, body: '{"truncated":', headers: { 'content-type': 'application/json' } })
      await tour.bank(b.method, b.url, { token, body: {} })
    }
    if (b.method === 'GET') {
      await tour.bank(b.method, b.url, { token, headers: UNACCEPTABLE })
      if (b.path.includes('{')) await tour.bank(b.method, unknownResource(b), { token })
    }
  }
  await tour.bank('POST', '/v2/auth?v=1', { body: loginBody({ ...CUSTOMER_1, password: 'wrong-password' }) })
  await tour.bank('POST', '/v2/token?v=1', { token, body: { tokenRequest: { type: 'no-such-type' } } })
  // The throttle, from an address of its own: a flood of unauthenticated calls spends the allowance.
  const flood = '127.0.0.3'
  for (let i = 0; i < LIMITS.banking; i++) await tour.bank('GET', '/v2/accounts?v=1', { localAddress: flood })
  for (const b of all) await tour.bank(b.method, b.url, { token, localAddress: flood })
}

async function oauthErrors(tour: Tour) {
  const { t } = tour
  const json = { 'content-type': 'application/json' }
  for (const url of OAUTH_ENDPOINTS) {
    await tour.form(url, { token: 'x', grant_type: 'client_credentials' })
    await tour.form(url, { token: 'x', grant_type: 'client_credentials', client_id: MERCHANT_CLIENT.clientId, client_secret: 'wrong-secret' })
    await tour.send('POST', url, { headers: json, body: { grant_type: 'client_credentials' } })
    await tour.form(url, { token: 'x', client_id: 'a', grant_type: 'a', response_type: 'a', redirect_uri: 'a' }, { ...asClient(PARTNER_CLIENT), ...UNACCEPTABLE })
  }
  await tour.form('/oauth2/v3/token', { grant_type: 'authorization_code', client_id: t.sandboxKey, code: 'no-such-code', redirect_uri: REDIRECT, code_verifier: pkce().verifier })
  await tour.form('/oauth2/v3/token', { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: 'no-such-token' })
  await tour.form('/oauth2/v3/par', { response_type: 'code', redirect_uri: 'http://elsewhere.example/cb', scope: 'reporting' }, asClient(PARTNER_CLIENT))
  // The client calls' throttle, from an address of its own, naming a client_id of its own: each endpoint refuses.
  const flood = '127.0.0.4'
  for (let i = 0; i < LIMITS.clientCalls; i++) await tour.form('/oauth2/v3/revoke', { token: 'x', client_id: 'flooding-client', client_secret: 'x' }, {}, flood)
  for (const url of OAUTH_ENDPOINTS) await tour.form(url, { token: 'x', grant_type: 'client_credentials', client_id: 'flooding-client', client_secret: 'x' }, {}, flood)
  await authorizeErrors(tour)
}

/** The pages: an unknown client, a bad scope (back to the client), a form without its page, a bad answer, a flood of sign-ins. */
async function authorizeErrors(tour: Tour) {
  const { t } = tour
  const params = (over: Record<string, string> = {}) =>
    new URLSearchParams({ response_type: 'code', client_id: t.sandboxKey, redirect_uri: REDIRECT, scope: 'accounts', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', ...over }).toString()
  await tour.send('GET', `/oauth2/v3/authorize?${params({ client_id: 'no-such-client' })}`)
  await tour.send('GET', `/oauth2/v3/authorize?${params({ scope: 'no-such-scope' })}`)
  await tour.send('GET', `/oauth2/v3/authorize?${params()}`, { headers: UNACCEPTABLE })
  await tour.form('/oauth2/v3/authorize', { csrf_token: 'x', username: 'u', password: 'p' })
  await tour.send('POST', '/oauth2/v3/authorize', { headers: { 'content-type': 'application/json' }, body: { csrf_token: 'x' } })
  const flood = '127.0.0.5'
  const page = await tour.send('GET', `/oauth2/v3/authorize?${params()}`, { localAddress: flood })
  const cookie = String([page.headers['set-cookie']].flat()[0] ?? '').split(';')[0]
  let form = page
  for (let i = 0; i <= LIMITS.signIns; i++) {
    const answer = await tour.form('/oauth2/v3/authorize', { csrf_token: csrfFrom(form.text) ?? 'x', username: CUSTOMER_1.username, password: 'wrong-password' }, { cookie }, flood)
    if (answer.status === 200) form = answer
  }
  const fresh = await tour.send('GET', `/oauth2/v3/authorize?${params()}`, { headers: { cookie } })
  const consent = await tour.form('/oauth2/v3/authorize', { csrf_token: csrfFrom(fresh.text), username: CUSTOMER_1.username, password: CUSTOMER_1.password }, { cookie })
  await tour.form('/oauth2/v3/authorize', { csrf_token: csrfFrom(consent.text), decision: 'maybe' }, { cookie })
}
