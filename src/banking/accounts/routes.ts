// The banking interface's routes, mounted under /v2 behind the gateway. Each handler takes validated input and
// the principal, makes one service call and returns the spec's envelope. Reads of data that does not change
// are sent pre-rendered (see platform/rendered.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { requestUrlOf } from '../../platform/http/public-url.js'
import { connectionMemo } from '../../platform/http/connection-memo.js'
import { SUCCESS } from '../errors.js'
import { sendRendered } from '../../platform/rendered.js'
import { errorResponses, successBody } from '../gateway/schemas.js'
import type { AccountsService } from './service.js'
import type { AuthService, BankingPrincipal } from '../auth/service.js'
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
    principal?: BankingPrincipal
  }
}

export interface BankingServices {
  auth: AuthService
  accounts: AccountsService
}

const tags = ['banking']
const DPOP_SCHEME = /^DPoP\s/i
const authenticated = { security: [{ svcKey: [], authorization: [] }] }
const unauthorized = errorResponses(['API-448'])

export async function bankingRoutes(v2: App, services: BankingServices, options: { publicUrl?: string } = {}): Promise<void> {
  const { auth, accounts } = services
  // Declared up front so every request object keeps one shape (Fastify's advice for per-request properties).
  v2.decorateRequest('principal', undefined)
  // A route-level onRequest hook runs right after the gateway's (key, version, throttle) in the same pass, and
  // before the body is read or anything is validated: an unauthenticated call learns nothing about its input.
  // Callback style, so a session verified moments ago passes without waiting on a promise.
  const requireToken = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const known = auth.recall(request.headers.authorization, connectionMemo(request.raw)?.token)
    if (known) {
      request.principal = known
      return done()
    }
    // Only a DPoP-scheme header makes the proof's request URL (RFC 9449 7): a bearer token pays nothing for DPoP.
    const header = request.headers.authorization
    const proof = header !== undefined && DPOP_SCHEME.test(header) ? { method: request.method, url: requestUrlOf(request, options.publicUrl), proof: request.headers['dpop'] } : undefined
    auth.authenticate(header, request.application?.id, proof).then((principal) => {
      request.principal = principal
      done()
    }, done)
  }
  const principal = (request: FastifyRequest): BankingPrincipal => request.principal!

  v2.post(
    '/v2/auth',
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
      const r = await auth.login(request.body, { source: request.ip })
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
    '/v2/auth',
    {
      onRequest: requireToken,
      schema: { tags, operationId: 'logout', summary: 'Revoke the Authorization token at once', ...authenticated, response: { 200: successBody({}), ...unauthorized } },
    },
    async (request) => {
      await auth.logout(principal(request))
      return { status: SUCCESS }
    },
  )

  v2.post(
    '/v2/token',
    {
      onRequest: requireToken,
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
    '/v2/accounts',
    {
      onRequest: requireToken,
      schema: {
        tags,
        operationId: 'listAccounts',
        summary: "The user's visible accounts",
        ...authenticated,
        querystring: CategoryQuery,
        response: { 200: successBody({ accountsResponse: Type.Object({ accounts: Type.Array(AccountListEntry) }) }), ...unauthorized },
      },
    },
    (request, reply) => sendRendered(reply, accounts.list(principal(request), request.query.category), (list) => ({ status: SUCCESS, accountsResponse: { accounts: list } })),
  )

  v2.get(
    '/v2/accounts/balance',
    {
      onRequest: requireToken,
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
    '/v2/accounts/quickBalance',
    {
      onRequest: requireToken,
      schema: {
        tags,
        operationId: 'quickBalances',
        summary: 'Summary balances',
        ...authenticated,
        response: { 200: successBody({ quickBalanceResponse: Type.Object({ accounts: Type.Array(QuickBalanceEntry) }) }), ...unauthorized },
      },
    },
    (request, reply) => sendRendered(reply, accounts.quickBalances(principal(request)), (list) => ({ status: SUCCESS, quickBalanceResponse: { accounts: list } })),
  )

  v2.get(
    '/v2/account/:accountToken',
    {
      onRequest: requireToken,
      schema: {
        tags,
        operationId: 'accountDetails',
        summary: 'Details of one account, by the token from the account list',
        ...authenticated,
        params: AccountTokenParams,
        response: { 200: successBody({ accountDetailsResponse: AccountDetails }), ...unauthorized },
      },
    },
    (request, reply) => sendRendered(reply, accounts.details(principal(request), request.params.accountToken), (details) => ({ status: SUCCESS, accountDetailsResponse: details })),
  )
}
