// The account reads (/v2/accounts, /v2/accounts/balance, /v2/accounts/quickBalance, /v2/account/{accountToken}),
// behind the banking gateway and the Authorization check. Each handler takes validated input and the principal, makes
// one service call and returns the spec's envelope. Reads of data that does not change are sent pre-rendered (see
// platform/rendered.ts).
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { sendRendered } from '../../platform/rendered.js'
import { AUTHENTICATED, UNAUTHORIZED, type TokenCheck } from '../auth/token-check.js'
import { SUCCESS } from '../errors.js'
import { successBody } from '../gateway/schemas.js'
import { AccountDetails, AccountListEntry, AccountTokenParams, BalanceEntry, BalanceQuery, CategoryQuery, QuickBalanceEntry } from './schemas.js'
import type { AccountsService } from './service.js'

const tags = ['banking']

export async function accountRoutes(v2: App, deps: { accounts: AccountsService; check: TokenCheck }): Promise<void> {
  const { accounts, check } = deps

  v2.get(
    '/v2/accounts',
    {
      onRequest: check.requireToken,
      schema: {
        tags,
        operationId: 'listAccounts',
        summary: "The user's visible accounts",
        ...AUTHENTICATED,
        querystring: CategoryQuery,
        response: { 200: successBody({ accountsResponse: Type.Object({ accounts: Type.Array(AccountListEntry) }) }), ...UNAUTHORIZED },
      },
    },
    (request, reply) => sendRendered(reply, accounts.list(check.principal(request), request.query.category), (list) => ({ status: SUCCESS, accountsResponse: { accounts: list } })),
  )

  v2.get(
    '/v2/accounts/balance',
    {
      onRequest: check.requireToken,
      schema: {
        tags,
        operationId: 'accountBalances',
        summary: 'Detailed balances, with baseCurrencyBalance converted by stored exchange rates',
        ...AUTHENTICATED,
        querystring: BalanceQuery,
        response: { 200: successBody({ accountBalancesResponse: Type.Object({ accounts: Type.Array(BalanceEntry) }) }), ...UNAUTHORIZED },
      },
    },
    async (request) => ({ status: SUCCESS, accountBalancesResponse: { accounts: await accounts.balances(check.principal(request), request.query) } }),
  )

  v2.get(
    '/v2/accounts/quickBalance',
    {
      onRequest: check.requireToken,
      schema: {
        tags,
        operationId: 'quickBalances',
        summary: 'Summary balances',
        ...AUTHENTICATED,
        response: { 200: successBody({ quickBalanceResponse: Type.Object({ accounts: Type.Array(QuickBalanceEntry) }) }), ...UNAUTHORIZED },
      },
    },
    (request, reply) => sendRendered(reply, accounts.quickBalances(check.principal(request)), (list) => ({ status: SUCCESS, quickBalanceResponse: { accounts: list } })),
  )

  v2.get(
    '/v2/account/:accountToken',
    {
      onRequest: check.requireToken,
      schema: {
        tags,
        operationId: 'accountDetails',
        summary: 'Details of one account, by the token from the account list',
        ...AUTHENTICATED,
        params: AccountTokenParams,
        response: { 200: successBody({ accountDetailsResponse: AccountDetails }), ...UNAUTHORIZED },
      },
    },
    (request, reply) => sendRendered(reply, accounts.details(check.principal(request), request.params.accountToken), (details) => ({ status: SUCCESS, accountDetailsResponse: details })),
  )
}
