// Token introspection (RFC 7662). The client authenticates as at the token endpoint, and sees only its own tokens:
// another client's token introspects as {active: false}, exactly like an unknown one, so the endpoint never tells a
// client whether a token it holds but was not issued exists.
import type { Clock } from '../../platform/clock.js'
import { sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { AuthenticateClient } from '../clients/authenticate.js'
import type { OAuthClient } from '../clients/service.js'
import type { IntrospectRequest, IntrospectResponse } from './schemas.js'
import { OAuthError } from '../errors.js'
import * as repo from '../repository.js'
import { isLiveToken } from '../token/service.js'
import { MAX_TOKEN_LENGTH, presentFields, tokenOf } from '../token-request.js'

export interface IntrospectionService {
  /** POST /oauth2/v3/introspect: confidential clients only. */
  introspect(body: IntrospectRequest | undefined, authorization: string | undefined, source: string | undefined, authenticated?: (client: OAuthClient) => void): Promise<IntrospectResponse>
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000)

export function createIntrospectionService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; authenticateClient: AuthenticateClient }): IntrospectionService {
  const { db, clock, authenticateClient } = deps
  return {
    async introspect(body, authorization, source, authenticated) {
      const fields = presentFields(body)
      const { client, clientId } = await authenticateClient(fields, authorization, source)
      authenticated?.(client)
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
