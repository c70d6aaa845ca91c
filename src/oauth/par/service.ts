// Pushed authorization requests (RFC 9126): a client posts its authorization request, authenticated, and gets a
// single-use request_uri to send the browser with instead. The request is checked here as the authorize page
// would check it, so a bad one fails at the client's back end rather than in front of the account holder.
import type { Clock } from '../../platform/clock.js'
import { randomSecret, sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
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

export interface ParService {
  /** POST /oauth2/v3/par. */
  push(body: ParRequest | undefined, authorization: string | undefined, source: string | undefined): Promise<ParResponse>
  /** The client's pushed request this request_uri names, once, while it lives; undefined otherwise. */
  take(client: OAuthClient, requestUri: string): Promise<PushedRequest | undefined>
}

/** Housekeeping: pushed requests past their expiry, used or not. */
export async function prunePushedRequests(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  return repo.deleteExpiredPushedRequests(db.kysely, clock.now().toISOString())
}

export function createParService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; authenticateClient: AuthenticateClient }): ParService {
  const { db, clock, authenticateClient } = deps
  return {
    async push(body, authorization, source) {
      const fields = presentFields(body)
      const { client } = await authenticateClient(fields, authorization, source)
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
      return row && (JSON.parse(row.request) as PushedRequest)
    },
  }
}
