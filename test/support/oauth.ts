// Helpers for OAuth tests: PKCE pairs, driving the authorize pages like a browser without JavaScript (GET the
// page, keep its cookie, POST its form with the CSRF token parsed from the HTML), and calling the token endpoint.
import { createHash, randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { CUSTOMER_1 } from './banking.js'
import type { Response, TestApp } from './harness.js'

export const REDIRECT = 'http://127.0.0.1:8123/callback'
export const TOKEN_HEADERS = { 'content-type': 'application/json;charset=UTF-8', 'cache-control': 'no-store', pragma: 'no-cache' }
export const PAGE_HEADERS = { 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }

export function csp(formActionOrigin?: string): string {
  const formAction = formActionOrigin ? `'self' ${formActionOrigin}` : "'self'"
  return `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`
}

export interface Pkce {
  verifier: string
  challenge: string
}

export function pkce(): Pkce {
  const verifier = randomBytes(48).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The OAuth endpoints take no gateway headers; the harness's defaults are left off. */
const bare = { 'x-svc-key': undefined, 'user-agent': undefined }

export function authorizePath(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value)
  return `/oauth2/v3/authorize?${query}`
}

export interface AuthorizeParams {
  client_id: string
  redirect_uri?: string
  scope?: string
  state?: string
  code_challenge?: string
  code_challenge_method?: string
  response_type?: string
  [name: string]: string | undefined
}

/** A complete request for the sandbox client; override any member (undefined leaves it out). */
export function sandboxRequest(t: TestApp, challenge: string, overrides: Partial<AuthorizeParams> = {}): AuthorizeParams {
  return {
    response_type: 'code',
    client_id: t.sandboxKey,
    redirect_uri: REDIRECT,
    scope: 'accounts',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
}

/** A page of the flow with what the next form needs. */
export interface Page extends Response {
  cookie: string | undefined
  csrf: string | undefined
}

export function csrfFrom(html: string): string | undefined {
  return /<input type="hidden" name="csrf_token" value="([^"]*)">/.exec(html)?.[1]
}

function withPageState(res: Response, cookie: string | undefined): Page {
  const setCookie = res.headers['set-cookie']
  const sent = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0]
  return { ...res, cookie: sent ?? cookie, csrf: csrfFrom(res.text) }
}

export async function openAuthorize(t: TestApp, params: AuthorizeParams, cookie?: string): Promise<Page> {
  const res = await t.call('GET', authorizePath(params), { headers: { ...bare, cookie } })
  return withPageState(res, cookie)
}

export async function postForm(t: TestApp, fields: Record<string, string | undefined>, cookie: string | undefined): Promise<Page> {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value)
  const res = await t.call('POST', '/oauth2/v3/authorize', {
    headers: { ...bare, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  })
  return withPageState(res, cookie)
}

export async function signIn(t: TestApp, page: Page, who = CUSTOMER_1): Promise<Page> {
  return postForm(t, { csrf_token: page.csrf, username: who.username, password: who.password }, page.cookie)
}

/**
 * The redirect's query as an object, after checking it goes to `redirectUri` and names the issuer (RFC 9207: every
 * authorization response carries iss, the test server's base URL). `iss` is checked here and left out of the result.
 */
export function redirected(res: Response, redirectUri = REDIRECT): Record<string, string> {
  expect(res.status, res.text).toBe(303)
  const location = String(res.headers['location'])
  expect(location.split('?')[0]).toBe(redirectUri.split('?')[0])
  const { iss, ...query } = Object.fromEntries(new URL(location).searchParams)
  expect(iss, 'iss in the authorization response').toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  return query
}

export interface FlowOptions {
  params: AuthorizeParams
  who?: typeof CUSTOMER_1
}

/** Signs in and allows; returns the code and state from the redirect. */
export async function authorizeCode(t: TestApp, options: FlowOptions): Promise<{ code: string; state: string | undefined }> {
  const page = await openAuthorize(t, options.params)
  expect(page.status, page.text).toBe(200)
  const consent = await signIn(t, page, options.who)
  expect(consent.status, consent.text).toBe(200)
  expect(consent.text).toContain('Allow')
  const answer = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie)
  const query = redirected(answer, options.params.redirect_uri)
  expect(query['code']).toBeDefined()
  return { code: query['code']!, state: query['state'] }
}

export async function token(t: TestApp, fields: Record<string, string | undefined>, headers: Record<string, string | undefined> = {}): Promise<Response> {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value)
  return t.call('POST', '/oauth2/v3/token', {
    headers: { ...bare, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  })
}

/** The full sandbox flow for a customer: authorize, allow, exchange. Returns the token response body. */
export async function sandboxTokens(t: TestApp, who = CUSTOMER_1, scope = 'accounts') {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge, { scope }), who })
  const res = await token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier })
  expect(res.status, res.text).toBe(200)
  return res.json as { access_token: string; refresh_token: string; scope: string; expires_in: number; refresh_token_expires_in: number }
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`
}

/** A token failure: HTTP 500, the no-store headers, and exactly {error, error_description}. */
export function expectTokenError(res: Response, error: string, description?: string | RegExp): void {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status: 500, error })
  expect(res.headers).toMatchObject(TOKEN_HEADERS)
  expect(Object.keys(res.json).sort()).toEqual(['error', 'error_description'])
  if (typeof description === 'string') expect(res.json.error_description).toBe(description)
  else if (description) expect(res.json.error_description).toMatch(description)
}
