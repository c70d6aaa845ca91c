// Banking's protected routes for the shared security suite (test/banking/security.test.ts runs them): every route
// under /v2, each with a request that is allowed for the sandbox's first customer. Signing in takes the application
// key only; every other route takes a customer's token too.
import { CUSTOMER_1, CUSTOMER_2, loginBody, login, withToken } from '../banking.js'
import type { TestApp } from '../harness.js'
import type { SecuredRoute } from './suite.js'

export interface BankingRoute extends SecuredRoute {
  path: () => string
  body?: unknown
  /** Whether the route takes a customer's token (all but signing in). */
  token: boolean
}

/** The account tokens of the sandbox's first and second customer, read once the app is up. */
export const accountTokens = { first: '', second: '' }

/** An account token nobody has (the format's length). */
export const UNKNOWN_ACCOUNT = 'A'.repeat(43)

export const BANKING_ROUTES: readonly BankingRoute[] = [
  { route: 'POST /v2/auth', token: false, path: () => '/v2/auth?v=1', body: loginBody(CUSTOMER_1) },
  { route: 'DELETE /v2/auth', token: true, path: () => '/v2/auth?v=1' },
  { route: 'POST /v2/token', token: true, path: () => '/v2/token?v=1', body: { tokenRequest: { type: 'softcredential' } } },
  { route: 'GET /v2/accounts', token: true, path: () => '/v2/accounts?v=1' },
  { route: 'GET /v2/accounts/balance', token: true, path: () => '/v2/accounts/balance?v=1' },
  { route: 'GET /v2/accounts/quickBalance', token: true, path: () => '/v2/accounts/quickBalance?v=1' },
  { route: 'GET /v2/account/:accountToken', token: true, path: () => `/v2/account/${accountTokens.first}?v=1` },
]

/** Reads each customer's first account token. */
export async function prepareBankingSecurity(t: TestApp): Promise<void> {
  for (const [who, slot] of [[CUSTOMER_1, 'first'], [CUSTOMER_2, 'second']] as const) {
    const token = await login(t, who)
    accountTokens[slot] = (await withToken(t, token)('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts[0].accountToken
  }
}
