// The banking interface's routes, mounted under /v2 behind the gateway. Each handler takes validated input and
// the principal, makes one service call and returns the spec's envelope. Reads of data that does not change
// are sent pre-rendered (see platform/rendered.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../app.js'
import { SUCCESS } from '../platform/errors.js'
import { sendRendered } from '../platform/rendered.js'
import { errorResponses, successBody } from '../platform/gateway/schemas.js'
import type { AccountsService } from './accounts-service.js'
import type { AuthService, Principal } from './auth-service.js'
import {
  AccountDetails,
  AccountListEntry,
  AccountTokenParams,
  BalanceEntry,
  BalanceQuery,
  CategoryQuery,
  LoginBody,
  LoginResponse,
  QuickBalanceEntry,
  TokenBody,
  TokenResponse,
} from './schemas.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal
  }
}

export interface BankingServices {
  auth: AuthService
  accounts: AccountsService
}

const tags = ['banking']
const authenticated = { security: [{ svcKey: [], authorization: [] }] }
const unauthorized = errorResponses(['API-448'])

export async function bankingRoutes(v2: App, services: BankingServices): Promise<void> {
  const { auth, accounts } = services
  // After the gateway and throttling, before validation: an unauthenticated call learns nothing about its input.
  // Callback style, so a session verified moments ago passes without waiting on a promise.
  const requireToken = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const known = auth.recall(request.headers.authorization)
    if (known) {
      request.principal = known
      return done()
    }
    auth.authenticate(request.headers.authorization, request.application?.id).then((principal) => {
      request.principal = principal
      done()
    }, done)
  }
  const principal = (request: FastifyRequest): Principal => request.principal!

  v2.post(
    '/auth',
    {
      schema: {
        tags,
        operationId: 'login',
        summary: 'Sign in with one credential and receive a 15-minute Authorization token',
        body: LoginBody,
        response: { 200: successBody({ loginResponse: LoginResponse }), ...unauthorized },
      },
    },
    async (request) => {
      const r = await auth.login(request.body)
      return {
        status: SUCCESS,
        loginResponse: {
          tokens: [{ type: 'header', name: 'Authorization', value: r.token, expires: r.expires }],
          userLevelFlags: { isBusinessUser: r.isBusinessUser, isRestrictedToAppTracker: r.isRestrictedToAppTracker },
        },
      }
    },
  )

  v2.delete(
    '/auth',
    {
      preValidation: requireToken,
      schema: { tags, operationId: 'logout', summary: 'Revoke the Authorization token at once', ...authenticated, response: { 200: successBody({}), ...unauthorized } },
    },
    async (request) => {
      await auth.logout(principal(request))
      return { status: SUCCESS }
    },
  )

  v2.post(
    '/token',
    {
      preValidation: requireToken,
      schema: {
        tags,
        operationId: 'createToken',
        summary: 'Create a soft credential (softcredential or touch) for signing in later with credentials.token',
        ...authenticated,
        body: TokenBody,
        response: { 200: successBody({ tokenResponse: TokenResponse }), ...unauthorized },
      },
    },
    async (request) => ({ status: SUCCESS, tokenResponse: { token: await auth.createSoftCredential(principal(request), request.body.tokenRequest.type) } }),
  )

  v2.get(
    '/accounts',
    {
      preValidation: requireToken,
      schema: {
        tags,
        operationId: 'listAccounts',
        summary: "The user's visible accounts",
        ...authenticated,
        querystring: CategoryQuery,
        response: { 200: successBody({ accountsResponse: Type.Object({ accounts: Type.Array(AccountListEntry) }) }), ...unauthorized },
      },
    },
    async (request, reply) => {
      const list = await accounts.list(principal(request), request.query.category)
      return sendRendered(reply, list, () => ({ status: SUCCESS, accountsResponse: { accounts: list } }))
    },
  )

  v2.get(
    '/accounts/balance',
    {
      preValidation: requireToken,
      schema: {
        tags,
        operationId: 'accountBalances',
        summary: 'Detailed balances, with baseCurrencyBalance converted by stored exchange rates',
        ...authenticated,
        querystring: BalanceQuery,
        response: { 200: successBody({ accountBalancesResponse: Type.Object({ accounts: Type.Array(BalanceEntry) }) }), ...unauthorized },
      },
    },
    async (request) => ({ status: SUCCESS, accountBalancesResponse: { accounts: await accounts.balances(principal(request), request.query) } }),
  )

  v2.get(
    '/accounts/quickBalance',
    {
      preValidation: requireToken,
      schema: {
        tags,
        operationId: 'quickBalances',
        summary: 'Summary balances',
        ...authenticated,
        response: { 200: successBody({ quickBalanceResponse: Type.Object({ accounts: Type.Array(QuickBalanceEntry) }) }), ...unauthorized },
      },
    },
    async (request, reply) => {
      const list = await accounts.quickBalances(principal(request))
      return sendRendered(reply, list, () => ({ status: SUCCESS, quickBalanceResponse: { accounts: list } }))
    },
  )

  v2.get(
    '/account/:accountToken',
    {
      preValidation: requireToken,
      schema: {
        tags,
        operationId: 'accountDetails',
        summary: 'Details of one account, by the token from the account list',
        ...authenticated,
        params: AccountTokenParams,
        response: { 200: successBody({ accountDetailsResponse: AccountDetails }), ...unauthorized },
      },
    },
    async (request, reply) => {
      const details = await accounts.details(principal(request), request.params.accountToken)
      return sendRendered(reply, details, () => ({ status: SUCCESS, accountDetailsResponse: details }))
    },
  )
}
