// Token revocation (RFC 7009) and introspection (RFC 7662). Both authenticate the client as the token endpoint
// does, and both see only the calling client's own tokens: another client's token is revoked by nobody but its
// client, and introspects as {active: false}, exactly like an unknown one, so neither endpoint tells a client
// whether a token it holds but was not issued exists.
import type { Clock } from '../../platform/clock.js'
import { sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { AuthenticateClient } from '../clients/authenticate.js'
import type { IntrospectRequest, IntrospectResponse, RevokeRequest } from '../endpoint-schemas.js'
import { OAuthError } from '../errors.js'
import * as repo from '../repository.js'
import { isLiveToken } from '../token/service.js'
import { presentFields } from '../token-request.js'

export interface IntrospectionService {
  /** POST /oauth2/v3/revoke: ends the whole grant of a token of the caller's; nothing for any other token. */
  revoke(body: RevokeRequest | undefined, authorization: string | undefined, source: string | undefined): Promise<void>
  /** POST /oauth2/v3/introspect: confidential clients only. */
  introspect(body: IntrospectRequest | undefined, authorization: string | undefined, source: string | undefined): Promise<IntrospectResponse>
}

const MAX_TOKEN_LENGTH = 512
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000)

function tokenOf(fields: { token?: string }): string {
  if (fields.token === undefined) throw new OAuthError('invalid_request', 'token is required')
  return fields.token
}

export function createIntrospectionService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; authenticateClient: AuthenticateClient }): IntrospectionService {
  const { db, clock, authenticateClient } = deps
  return {
    async revoke(body, authorization, source) {
      const fields = presentFields(body)
      const { client } = await authenticateClient(fields, authorization, source)
      const token = tokenOf(fields)
      // RFC 7009 2.2: an invalid token (unknown, expired, already revoked, not this client's) is answered 200 too.
      // token_type_hint is not needed: both kinds are found by the token's hash.
      if (token.length > MAX_TOKEN_LENGTH) return
      await repo.revokeGrantOfToken(db.kysely, sha256Hex(token), client.id, clock.now().toISOString())
    },

    async introspect(body, authorization, source) {
      const fields = presentFields(body)
      const { client, clientId } = await authenticateClient(fields, authorization, source)
      // A public client can be impersonated by anyone who read its client_id: it may not ask about tokens.
      if (!client.confidential) throw new OAuthError('invalid_client', 'token introspection is for confidential clients')
      const token = tokenOf(fields)
      if (token.length > MAX_TOKEN_LENGTH) return { active: false }
      const row = await repo.findToken(db.kysely, sha256Hex(token))
      if (!row || row.client_id !== client.id || !isLiveToken(row, clock.now().toISOString())) return { active: false }
      return {
        active: true,
        scope: row.scope,
        client_id: clientId,
        ...(row.kind === 'access' ? { token_type: row.jkt === null ? ('Bearer' as const) : ('DPoP' as const) } : {}),
        exp: seconds(row.expires_at),
        iat: seconds(row.created_at),
        ...(row.customer_id === null ? {} : { sub: row.customer_id }),
        ...(row.jkt === null ? {} : { cnf: { jkt: row.jkt } }),
      }
    },
  }
}
