// Token revocation (RFC 7009). The client authenticates as at the token endpoint, and sees only its own tokens:
// another client's token is revoked by nobody but its client, and is answered exactly like an unknown one, so the
// endpoint never tells a client whether a token it holds but was not issued exists.
import type { Clock } from '../../platform/clock.js'
import { sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { AuthenticateClient } from '../clients/authenticate.js'
import type { OAuthClient } from '../clients/service.js'
import * as repo from '../repository.js'
import { MAX_TOKEN_LENGTH, presentFields, tokenOf } from '../token-request.js'
import type { RevokeRequest } from './schemas.js'

export interface RevocationService {
  /** POST /oauth2/v3/revoke: ends the whole grant of a token of the caller's; nothing for any other token. */
  revoke(body: RevokeRequest | undefined, authorization: string | undefined, source: string | undefined, authenticated?: (client: OAuthClient) => void): Promise<void>
}

export function createRevocationService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; authenticateClient: AuthenticateClient }): RevocationService {
  const { db, clock, authenticateClient } = deps
  return {
    async revoke(body, authorization, source, authenticated) {
      const fields = presentFields(body)
      const { client } = await authenticateClient(fields, authorization, source)
      authenticated?.(client)
      const token = tokenOf(fields)
      // RFC 7009 2.2: an invalid token (unknown, expired, already revoked, not this client's) is answered 200 too.
      // token_type_hint is not needed: both kinds are found by the token's hash.
      if (token.length > MAX_TOKEN_LENGTH) return
      await repo.revokeGrantOfToken(db.kysely, sha256Hex(token), client.id, clock.now().toISOString())
    }
  }
}
