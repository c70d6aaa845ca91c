// The OAuth routes' valid requests (the authorize page for the sandbox and the partner client, its sign-in and
// consent forms with a real pending consent's CSRF token and cookie, the token endpoint for each grant), for the
// fuzz engine to mangle; and open-redirect payloads put in the redirect URI on purpose.
import fc from 'fast-check'
import type { Context } from './banking.js'
import { payloads, type Header, type Param } from './mangle.js'
import { PARTNER_REDIRECT } from './oracle.js'
import { variants, type Template } from './requests.js'
import type { FuzzCase } from './wire.js'

export const REDIRECT = 'http://127.0.0.1:8123/callback'
const FORM_HEADERS: Header[] = [['Host', '127.0.0.1'], ['User-Agent', 'finapi-fuzz/1.0']]

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`
}

export function authorizeParams(ctx: Context, overrides: Record<string, string> = {}): Param[] {
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: ctx.key,
    redirect_uri: REDIRECT,
    scope: 'accounts',
    state: 'fuzz-state',
    code_challenge: ctx.pkce.challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
  return Object.entries(params)
}

function templates(ctx: Context): Template[] {
  const page = (i: number) => ctx.pages[i % ctx.pages.length]!
  const consent = (i: number) => ctx.consents[i % ctx.consents.length]!
  const withCookie = (cookie: string): Header[] => [...FORM_HEADERS, ['Cookie', cookie]]
  const authorize = (note: string, params: Param[], cookie?: string): Template => ({ note, method: 'GET', path: '/oauth2/v3/authorize', params, headers: cookie ? withCookie(cookie) : FORM_HEADERS })
  const form = (note: string, fields: Param[], headers: Header[], path = '/oauth2/v3/authorize'): Template => ({ note, method: 'POST', path, params: [], headers, body: { form: fields } })
  const code = ctx.codes[0]!
  const list: Template[] = [
    authorize('GET authorize sandbox client', authorizeParams(ctx)),
    authorize('GET authorize with a cookie', authorizeParams(ctx, { scope: 'accounts reporting' }), page(0).cookie),
    authorize('GET authorize partner client', authorizeParams(ctx, { client_id: ctx.partner.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'reporting' })),
    authorize('GET authorize redirect_url', authorizeParams(ctx, { brand: 'nab', lob: 'nab' }).map(([k, v]) => [k === 'redirect_uri' ? 'redirect_url' : k, v] as Param)),
    form('POST authorize sign-in', [['csrf_token', page(1).csrf], ['username', '10055670'], ['password', 'aaa111']], withCookie(page(1).cookie)),
    form('POST authorize sign-in wrong password', [['csrf_token', page(2).csrf], ['username', '10055671'], ['password', 'wrong']], withCookie(page(2).cookie)),
    form('POST authorize allow', [['csrf_token', consent(0).csrf], ['decision', 'allow']], withCookie(consent(0).cookie)),
    form('POST authorize deny', [['csrf_token', consent(1).csrf], ['decision', 'deny']], withCookie(consent(1).cookie)),
    form('POST token authorization_code', [['grant_type', 'authorization_code'], ['client_id', ctx.key], ['code', code.code], ['redirect_uri', REDIRECT], ['code_verifier', code.verifier]], FORM_HEADERS, '/oauth2/v3/token'),
    form('POST token refresh_token', [['grant_type', 'refresh_token'], ['client_id', ctx.key], ['refresh_token', ctx.refresh]], FORM_HEADERS, '/oauth2/v3/token'),
    form('POST token client_credentials basic', [['grant_type', 'client_credentials'], ['scope', 'reporting']], [...FORM_HEADERS, ['Authorization', basic(ctx.partner.clientId, ctx.partner.secret)]], '/oauth2/v3/token'),
    form('POST token client_credentials post', [['grant_type', 'client_credentials'], ['client_id', ctx.partner.clientId], ['client_secret', ctx.partner.secret]], [...FORM_HEADERS, ['v-c-client-correlation-id', 'fuzz-cid']], '/oauth2/v3/token'),
    { note: 'GET stylesheet', method: 'GET', path: '/oauth2/v3/assets/consent.css', params: [], headers: FORM_HEADERS },
  ]
  return list
}

/** The redirect URI replaced by an open-redirect payload, for both clients, with every other parameter valid or not. */
function openRedirects(ctx: Context): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(...payloads.REDIRECTS, `${PARTNER_REDIRECT}/x`, `${PARTNER_REDIRECT}?a=1`, 'https://partner.example/callback#x'), fc.boolean(), fc.constantFrom('', 'plain', 'x', 'token')).map(([uri, partner, broken]) => {
    const params = authorizeParams(ctx, { redirect_uri: uri, ...(partner ? { client_id: ctx.partner.clientId, scope: 'reporting' } : {}), ...(broken ? { code_challenge_method: broken } : {}) })
    return { type: 'http', note: `GET authorize open redirect ${uri}`, method: 'GET', target: `/oauth2/v3/authorize?${new URLSearchParams(params)}`, headers: FORM_HEADERS }
  })
}

/** Every OAuth route, valid and mangled. */
export function oauthCases(ctx: Context): fc.Arbitrary<FuzzCase> {
  return fc.oneof({ weight: 12, arbitrary: fc.oneof(...templates(ctx).map(variants)) }, { weight: 1, arbitrary: openRedirects(ctx) })
}
