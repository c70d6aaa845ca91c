// The Authorization check of every banking route but sign-in: a route-level onRequest hook, so it runs right after
// the gateway's (key, version, throttle) in the same pass, and before the body is read or anything is validated: an
// unauthenticated call learns nothing about its input. Callback style, so a session verified moments ago passes
// without waiting on a promise.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { App } from '../../platform/http/app.js'
import { connectionMemo } from '../../platform/http/connection-memo.js'
import { requestUrlOf } from '../../platform/http/public-url.js'
import { errorResponses } from '../gateway/schemas.js'
import type { AuthService, BankingPrincipal } from './service.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal?: BankingPrincipal
  }
}

const DPOP_SCHEME = /^DPoP\s/i

/** What an authenticated route adds to its schema: the Authorization header, and API-448 when it is refused. */
export const AUTHENTICATED = { security: [{ svcKey: [], authorization: [] }] }
export const UNAUTHORIZED = errorResponses(['API-448'])

export interface TokenCheck {
  /** The route-level onRequest hook: sets the request's principal, or answers API-448. */
  requireToken(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void
  /** The principal of a request that passed requireToken. */
  principal(request: FastifyRequest): BankingPrincipal
}

/** Declares the request's principal on the scope (once) and returns the check its routes use. */
export function tokenCheck(v2: App, auth: Pick<AuthService, 'recall' | 'authenticate'>, options: { publicUrl?: string } = {}): TokenCheck {
  // Declared up front so every request object keeps one shape (Fastify's advice for per-request properties).
  v2.decorateRequest('principal', undefined)
  return {
    requireToken(request, _reply, done) {
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
    },
    principal: (request) => request.principal!,
  }
}
