// Pushed authorization requests (RFC 9126): a client posts its authorization request, authenticated, and gets a
// single-use request_uri to send the browser with instead. The request is checked here as the authorize page
// would check it, so a bad one fails at the client's back end rather than in front of the account holder.
import type { Clock } from '../../platform/clock.js'
import { randomSecret, sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { DpopVerifier } from '../../platform/dpop.js'
import { checkAuthorizeRequest, readAuthorizeParams } from '../authorize-request.js'
import type { AuthenticateClient } from '../clients/authenticate.js'
import type { OAuthClient } from '../clients/service.js'
import type { ParRequest, ParResponse } from './schemas.js'
import { OAuthError, type EndpointErrorCode } from '../errors.js'
import { redirectAllowed } from '../redirect-uri.js'
import * as repo from '../repository.js'
import { formatScope } from '../scope.js'
import { presentFields } from '../token-request.js'
import type { CheckedAuthorizeRequest } from '../pending-request.js'

/** Seconds a request_uri can be used (RFC 9126 suggests 5 to 600; a browser redirect needs seconds). */
export const PAR_TTL_S = 90
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:'
const MAX_REQUEST_URI_LENGTH = 128

/** A checked authorization request, as pushed. */
export type PushedRequest = CheckedAuthorizeRequest

/** What a push needs of the HTTP request beyond its form. */
export interface ParContext {
  /** The caller's address (request.ip), for the guessing throttle. */
  source?: string
  /** The endpoint's URL as the client addressed it, for the DPoP proof's htu. */
  url: string
  /** The DPoP header, if any: it binds the code to its key (RFC 9449 10). */
  dpop?: string | string[]
  /** Told of the client once it authenticated (the route names it as the request's caller, for the request log). */
  authenticated?: (client: OAuthClient) => void
}

export interface ParService {
  /** POST /oauth2/v3/par. */
  push(body: ParRequest | undefined, authorization: string | undefined, context: ParContext): Promise<ParResponse>
  /** The client's pushed request this request_uri names, once, while it lives; undefined otherwise. */
  take(client: OAuthClient, requestUri: string): Promise<PushedRequest | undefined>
}

/** Housekeeping: pushed requests past their expiry, used or not. */
export async function prunePushedRequests(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteExpiredPushedRequests(db.kysely, clock.now().toISOString())
}

export function createParService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; authenticateClient: AuthenticateClient; dpop: DpopVerifier }): ParService {
  const { db, clock, authenticateClient, dpop } = deps

  /**
   * The key the code is to be bound to (RFC 9449 10): the DPoP proof's, or dpop_jkt's, or none. Both may be sent,
   * but must name the same key.
   */
  async function boundKey(dpopJkt: string | undefined, context: ParContext): Promise<string | null> {
    if (context.dpop === undefined) return dpopJkt ?? null
    const proof = await dpop.verify(context.dpop, { method: 'POST', url: context.url })
    if (!proof.ok) throw new OAuthError('invalid_dpop_proof', proof.reason)
    if (dpopJkt !== undefined && dpopJkt !== proof.jkt) throw new OAuthError('invalid_dpop_proof', "dpop_jkt is not the thumbprint of the DPoP proof's key")
    return proof.jkt
  }

  return {
    async push(body, authorization, context) {
      const fields = presentFields(body)
      const { client } = await authenticateClient(fields, authorization, context.source)
      context.authenticated?.(client)
      if (fields.request_uri !== undefined) throw new OAuthError('invalid_request', 'a pushed request may not carry request_uri')
      const params = readAuthorizeParams(fields)
      if (params.conflictingRedirect) throw new OAuthError('invalid_request', 'redirect_uri and redirect_url differ')
      if (!params.redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required')
      if (!redirectAllowed(client, params.redirectUri)) throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client')
      const checked = checkAuthorizeRequest(params, client.scopes)
      if ('error' in checked) throw new OAuthError(checked.error as EndpointErrorCode, checked.description)

      const request: PushedRequest = {
        redirectUri: params.redirectUri,
        scope: formatScope(checked.scopes),
        state: checked.state ?? null,
        codeChallenge: checked.codeChallenge,
        brand: checked.brand,
        lob: checked.lob,
        dpopJkt: await boundKey(checked.dpopJkt, context),
      }
      const requestUri = REQUEST_URI_PREFIX + randomSecret(32)
      const now = clock.now()
      await repo.insertPushedRequest(db.kysely, {
        uri_hash: sha256Hex(requestUri),
        client_id: client.id,
        request: JSON.stringify(request),
        expires_at: new Date(now.getTime() + PAR_TTL_S * 1000).toISOString(),
        created_at: now.toISOString(),
      })
      return { request_uri: requestUri, expires_in: PAR_TTL_S }
    },

    async take(client, requestUri) {
      if (!requestUri.startsWith(REQUEST_URI_PREFIX) || requestUri.length > MAX_REQUEST_URI_LENGTH) return undefined
      const row = await repo.takePushedRequest(db.kysely, sha256Hex(requestUri), client.id, clock.now().toISOString())
      if (!row) return undefined
      const request = JSON.parse(row.request) as PushedRequest
      // Pushed before codes could be bound (no dpopJkt): unbound, as it was.
      return { ...request, dpopJkt: request.dpopJkt ?? null }
    },
  }
}
