// Signing in and out (POST and DELETE /v2/auth) and soft credentials (POST /v2/token), behind the banking gateway.
// Each handler takes validated input and the principal, makes one service call and returns the spec's envelope.
import type { App } from '../../platform/http/app.js'
import { SUCCESS } from '../errors.js'
import { successBody } from '../gateway/schemas.js'
import { LoginBody, LoginResponse, TokenBody, TokenResponse } from './schemas.js'
import type { AuthService } from './service.js'
import { AUTHENTICATED, UNAUTHORIZED, type TokenCheck } from './token-check.js'

const tags = ['banking']

export async function authRoutes(v2: App, deps: { auth: AuthService; check: TokenCheck }): Promise<void> {
  const { auth, check } = deps

  v2.post(
    '/v2/auth',
    {
      schema: {
        tags,
        operationId: 'login',
        summary: 'Sign in with one credential and receive a 15-minute Authorization token',
        body: LoginBody,
        response: { 200: successBody({ loginResponse: LoginResponse }), ...UNAUTHORIZED },
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
      onRequest: check.requireToken,
      schema: { tags, operationId: 'logout', summary: 'Revoke the Authorization token at once', ...AUTHENTICATED, response: { 200: successBody({}), ...UNAUTHORIZED } },
    },
    async (request) => {
      await auth.logout(check.principal(request))
      return { status: SUCCESS }
    },
  )

  v2.post(
    '/v2/token',
    {
      onRequest: check.requireToken,
      schema: {
        tags,
        operationId: 'createToken',
        summary: 'Create a soft credential (softcredential or touch) for signing in later with credentials.token',
        ...AUTHENTICATED,
        body: TokenBody,
        response: { 200: successBody({ tokenResponse: TokenResponse }), ...UNAUTHORIZED },
      },
    },
    async (request) => ({ status: SUCCESS, tokenResponse: { token: await auth.createSoftCredential(check.principal(request), request.body.tokenRequest.type) } }),
  )
}
