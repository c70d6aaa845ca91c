// OAuth bearer tokens for reporting tests: the sandbox's reporting clients and merchant user (README, "Sandbox
// identities"), tokens from the token endpoint by client_credentials and by the partner's authorization-code flow
// (the merchant user signs in and allows on the consent page), and the SDK's `oauth` configuration.
import { expect } from 'vitest'
import type { TestApp } from './harness.js'
import { openAuthorize, pkce, postForm, redirected, signIn, token } from './oauth.js'

export const MERCHANT_CLIENT = { clientId: 'testrest-reporting', secret: '8Pp0fzAtKI3DkayhQHM+snVm7+GtqaLYZaB03ZH+HAk=', org: 'testrest' }
export const PARTNER_CLIENT = { clientId: 'testrest-acct-partner', secret: 'NgXdsHdWilSCYEOAOX3jjx7fOhF3dLtvNfM7sbpAZwc=', org: 'testrest_acct' }
/** The sandbox merchant user of testrest (brand and lob are unused: an organization's client signs in merchant users). */
export const MERCHANT_USER = { brand: 'nab', lob: 'nab', username: 'testrest', password: 'Testrest-1' }
export const PARTNER_REDIRECT = 'http://localhost:8765/partner/callback'

export interface Tokens {
  access_token: string
  refresh_token: string
  scope: string
}

/** A client_credentials token of a confidential client (secret in the form). */
export async function clientCredentialsToken(t: TestApp, client: { clientId: string; secret: string }, scope = 'reporting'): Promise<Tokens> {
  const res = await token(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret, scope })
  expect(res.status, res.text).toBe(200)
  return res.json as Tokens
}

/** The partner's authorization-code flow: the merchant user signs in on the consent page and allows; the code is exchanged. */
export async function partnerTokens(t: TestApp, who: { username: string; password: string } = MERCHANT_USER, client = PARTNER_CLIENT): Promise<Tokens> {
  const { verifier, challenge } = pkce()
  const params = { response_type: 'code', client_id: client.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'reporting', state: 's', code_challenge: challenge, code_challenge_method: 'S256' }
  const page = await openAuthorize(t, params)
  expect(page.status, page.text).toBe(200)
  expect(page.text).toContain('with your merchant user')
  const consent = await signIn(t, page, { brand: 'nab', lob: 'nab', ...who })
  expect(consent.text, 'the merchant user signed in').toContain('your merchant reports')
  const answer = await postForm(t, { csrf_token: consent.csrf, decision: 'allow' }, page.cookie)
  const code = redirected(answer, PARTNER_REDIRECT)['code']!
  const res = await token(t, { grant_type: 'authorization_code', client_id: client.clientId, client_secret: client.secret, code, redirect_uri: PARTNER_REDIRECT, code_verifier: verifier })
  expect(res.status, res.text).toBe(200)
  return res.json as Tokens
}

/** The headers of a bearer call (the harness's banking key left off). */
export function bearer(accessToken: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { 'x-svc-key': undefined, authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', ...extra }
}

/** The SDK's configuration for OAuth: it sends `Authorization: Bearer <accessToken>` and nothing else of the merchant. */
export function oauthConfig(baseUrl: string, merchantId: string, tokens: Tokens) {
  return {
    authenticationType: 'oauth',
    runEnvironment: 'apitest.cybersource.com',
    intermediateHost: baseUrl,
    merchantID: merchantId,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    logConfiguration: { enableLog: false },
  }
}
