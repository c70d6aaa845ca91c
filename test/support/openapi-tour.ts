// A tour of the API through HTTP, every answer checked against the OpenAPI document as it arrives (openapi-check.ts):
// the Tour sends requests as each family's clients do (banking's key and token, HTTP Signature, OAuth forms), and
// the success tour below calls every platform, banking and OAuth operation the way a client's first day would (the
// merchant API family's in openapi-tour-merchant.ts). Its answers, in order, are also the document's examples.
import { CUSTOMER_1, loginBody } from './banking.js'
import type { TestApp } from './harness.js'
import { MERCHANT_CLIENT, PARTNER_CLIENT, PARTNER_REDIRECT } from './reporting-oauth.js'
import { TESTREST_KEY, signedHeaders } from './reporting.js'
import { Conformance, decodedBody, exchange, type Exchange, type SendOptions } from './openapi-check.js'
import { REDIRECT, basic, csrfFrom, pkce } from './oauth.js'

export interface Sent extends Exchange {
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected as plain JSON
  json: any
}

type Key = typeof TESTREST_KEY
const FORM = 'application/x-www-form-urlencoded'
const form = (fields: Record<string, string | undefined>) => {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.append(name, value)
  return body.toString()
}

export class Tour {
  /** Every exchange, in order; those sent while `recording` are the examples' candidates. */
  readonly exchanges: (Exchange & { recorded: boolean })[] = []
  readonly problems: string[] = []
  recording = false

  constructor(
    readonly t: TestApp,
    readonly check: Conformance,
  ) {}

  async send(method: string, url: string, options: SendOptions = {}): Promise<Sent> {
    const x = await exchange(this.t.baseUrl, method, url, options)
    this.exchanges.push({ ...x, recorded: this.recording })
    this.problems.push(...this.check.check(x))
    const text = decodedBody(x).toString('utf8')
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { ...x, text, json }
  }

  /** A banking call: the sandbox application key, a User-Agent, and the customer's token when given. */
  bank(method: string, url: string, o: { token?: string; body?: unknown; headers?: Record<string, string | undefined>; localAddress?: string } = {}) {
    return this.send(method, url, { headers: { 'x-svc-key': this.t.sandboxKey, 'user-agent': 'finapi-tests/1.0', authorization: o.token, ...o.headers }, body: o.body, localAddress: o.localAddress })
  }

  /**
   * A call signed with HTTP Signature, dated by the app's clock. A signed write is single-use to the second, so
   * the clock moves a second after each write: the same write sent again is a new signature, as a real client's is.
   */
  async signed(method: string, url: string, o: { body?: unknown; key?: Key; merchantId?: string; headers?: Record<string, string | undefined> } = {}) {
    const body = o.body === undefined || typeof o.body === 'string' ? o.body : JSON.stringify(o.body)
    const headers = { ...signedHeaders({ method, path: url, body, key: o.key ?? TESTREST_KEY, merchantId: o.merchantId, date: this.t.clock.now() }), ...o.headers }
    const sent = await this.send(method, url, { headers, body })
    if (method !== 'GET') this.t.clock.advance(1000)
    return sent
  }

  /** A form POST to an OAuth endpoint or page. */
  form(url: string, fields: Record<string, string | undefined>, headers: Record<string, string | undefined> = {}, localAddress?: string) {
    return this.send('POST', url, { headers: { 'content-type': FORM, ...headers }, body: form(fields), localAddress })
  }
}

export const asClient = (c: { clientId: string; secret: string }) => ({ authorization: basic(c.clientId, c.secret) })
const cookieOf = (x: Exchange) => String([x.headers['set-cookie']].flat()[0] ?? '').split(';')[0]

/** The authorization-code flow on the pages: the sign-in page, sign-in, consent, allow; returns the code. */
export async function authorizeFlow(tour: Tour, params: Record<string, string>, who: { username: string; password: string }) {
  const page = await tour.send('GET', `/oauth2/v3/authorize?${form(params)}`)
  const cookie = cookieOf(page)
  const consent = await tour.form('/oauth2/v3/authorize', { csrf_token: csrfFrom(page.text), username: who.username, password: who.password }, { cookie })
  const answer = await tour.form('/oauth2/v3/authorize', { csrf_token: csrfFrom(consent.text), decision: 'allow' }, { cookie })
  return { page, cookie, consent, code: new URL(String(answer.headers['location'])).searchParams.get('code') ?? '' }
}

/** The platform's own operations: the home page (JSON and HTML), health. /metrics comes last, in the merchant tour. */
export async function platformTour(tour: Tour): Promise<void> {
  await tour.send('GET', '/')
  await tour.send('GET', '/', { headers: { accept: 'text/html' } })
  await tour.send('GET', '/health/live')
  await tour.send('GET', '/health/ready')
}

/** Banking: sign in, every read, a soft credential, sign out. */
export async function bankingTour(tour: Tour): Promise<{ accountToken: string }> {
  const login = await tour.bank('POST', '/v2/auth?v=1', { body: loginBody(CUSTOMER_1) })
  const token = login.json.loginResponse.tokens[0].value as string
  const list = await tour.bank('GET', '/v2/accounts?v=1', { token })
  await tour.bank('GET', '/v2/accounts/balance?v=1', { token })
  await tour.bank('GET', '/v2/accounts/quickBalance?v=1', { token })
  const accountToken = list.json.accountsResponse.accounts[0].accountToken as string
  await tour.bank('GET', `/v2/account/${accountToken}?v=1`, { token })
  await tour.bank('POST', '/v2/token?v=1', { token, body: { tokenRequest: { type: 'softcredential' } } })
  await tour.bank('DELETE', '/v2/auth?v=1', { token })
  return { accountToken }
}

/** OAuth: metadata; an account holder allows the sandbox client; its tokens exchanged and refreshed; a confidential client's client_credentials token introspected and revoked; a pushed request. */
export async function oauthTour(tour: Tour): Promise<void> {
  const { t } = tour
  await tour.send('GET', '/.well-known/oauth-authorization-server')
  const { verifier, challenge } = pkce()
  const params = { response_type: 'code', client_id: t.sandboxKey, redirect_uri: REDIRECT, scope: 'accounts', state: 'state-123', code_challenge: challenge, code_challenge_method: 'S256' }
  const { code } = await authorizeFlow(tour, params, CUSTOMER_1)
  const tokens = await tour.form('/oauth2/v3/token', { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier })
  await tour.form('/oauth2/v3/token', { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: tokens.json.refresh_token })
  const cc = await tour.form('/oauth2/v3/token', { grant_type: 'client_credentials', client_id: MERCHANT_CLIENT.clientId, client_secret: MERCHANT_CLIENT.secret, scope: 'reporting' })
  await tour.form('/oauth2/v3/introspect', { token: cc.json.access_token }, asClient(MERCHANT_CLIENT))
  await tour.form('/oauth2/v3/revoke', { token: cc.json.access_token }, asClient(MERCHANT_CLIENT))
  const pushed = pkce()
  await tour.form('/oauth2/v3/par', { response_type: 'code', redirect_uri: PARTNER_REDIRECT, scope: 'reporting', state: 'pushed', code_challenge: pushed.challenge, code_challenge_method: 'S256' }, asClient(PARTNER_CLIENT))
}
