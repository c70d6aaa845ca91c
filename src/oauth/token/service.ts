// The token endpoint's grants (authorization_code with PKCE, refresh_token with rotation, client_credentials),
// and the access tokens they issue as identity's resolvePrincipal sees them (the AccessTokenResolver it is given).
//
// Each authorization (and each client_credentials call) starts a grant: a token family revoked as a whole. A
// second use of a code, or of a spent refresh token, proves a secret leaked, so it revokes the family at once
// (RFC 9700 4.14.2, RFC 6749 4.1.2). Every other failure changes nothing.
import { randomUUID } from 'node:crypto'
import { APPLICATION_CHANGES } from '../../applications/service.js'
import type { MerchantUserService } from '../../identity/merchant-users/service.js'
import type { AccessToken, AccessTokenResolver } from '../../identity/types.js'
import type { Clock } from '../../platform/clock.js'
import { randomSecret, sha256Hex } from '../../platform/crypto.js'
import { stampedMemory } from '../../platform/db/changes.js'
import type { Db, Executor } from '../../platform/db/database.js'
import type { DpopVerifier } from '../../platform/dpop.js'
import type { AuthenticateClient } from '../clients/authenticate.js'
import type { OAuthClient } from '../clients/service.js'
import { CODE_MEMORY_MS } from '../authorize/service.js'
import { OAuthError } from '../errors.js'
import { isCodeVerifier, verifyPkce } from '../pkce.js'
import * as repo from '../repository.js'
import { GRANT_TYPES, type TokenRequest, type TokenResponse } from './schemas.js'
import { formatScope, parseScope } from '../scope.js'
import { clientCredentials, presentFields } from '../token-request.js'

export const ACCESS_TOKEN_TTL_S = 15 * 60
/** One year; each refresh issues a new refresh token with a full year, so the family lives while it is used. */
export const REFRESH_TOKEN_TTL_S = 365 * 24 * 60 * 60
const ACCESS_PREFIX = 'fat_'
const REFRESH_PREFIX = 'frt_'

/** What the token endpoint needs of the HTTP request beyond its form. */
export interface TokenContext {
  /** The caller's address (request.ip), for the guessing throttle. */
  source?: string
  /** The endpoint's URL as the client addressed it, for the DPoP proof's htu. */
  url: string
  /** The DPoP header, if any. */
  dpop?: string | string[]
  /** Told of the client once it authenticated (the route names it as the request's caller, for the request log). */
  authenticated?: (client: OAuthClient) => void
}

/** Also identity's AccessTokenResolver: app.ts passes it in, so identity resolves OAuth access tokens. */
export interface TokenService extends AccessTokenResolver {
  /** POST /oauth2/v3/token. Throws OAuthError on any failure. */
  token(body: TokenRequest | undefined, authorization: string | undefined, context: TokenContext): Promise<TokenResponse>
}

/** Not expired and not revoked: itself (spent, for a refresh token), its grant, its client or its application. */
export function isLiveToken(row: repo.TokenRow, now: string): boolean {
  return (
    row.expires_at > now &&
    (row.kind === 'access' || row.used_at === null) &&
    row.grant_revoked_at === null &&
    row.client_revoked_at === null &&
    (row.application_id === null || row.application_status === 'active')
  )
}

/**
 * Expired tokens are kept this long before they are deleted. Until then an expired token is still recognised,
 * so in the lenient sandbox it answers API-448 rather than reading as the any-string customer.
 */
export const TOKEN_RETENTION_MS = 24 * 60 * 60_000

/**
 * How long an active access token is used without reading it again while nothing that decides its state changes
 * anywhere (the change signal makes a revocation count at once; this bound is only so that nothing is kept forever).
 */
export const TOKEN_MEMORY_MS = 60_000
/** How many active access tokens a process remembers. */
const TOKEN_MEMORY_SIZE = 10_000

/** Housekeeping: deletes tokens expired over TOKEN_RETENTION_MS ago, and grants left with no token. */
export async function pruneTokens(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  const now = clock.now().getTime()
  const tokens = await repo.deleteTokensExpiredBefore(db.kysely, new Date(now - TOKEN_RETENTION_MS).toISOString())
  // A grant is made in the same transaction as its first tokens; the age guard leaves any being issued alone.
  const grants = await repo.deleteEmptyGrantsCreatedBefore(db.kysely, new Date(now - CODE_MEMORY_MS).toISOString())
  return tokens + grants
}

/** Thrown inside a transaction to roll it back when a concurrent request spent the same code or refresh token. */
class AlreadySpent extends Error {}

export function createTokenService(deps: {
  db: Pick<Db, 'kysely' | 'changes'>
  clock: Clock
  authenticateClient: AuthenticateClient
  dpop: DpopVerifier
  /** The organization a merchant user signs in for: what a code of an organization's client acts for. */
  merchantUsers: Pick<MerchantUserService, 'organizationOf'>
}): TokenService {
  const { db, clock, authenticateClient, dpop } = deps

  const isActive = (row: repo.TokenRow, now: string) => row.kind === 'access' && isLiveToken(row, now)

  /** The DPoP key the new tokens are bound to (RFC 9449 5), or null for bearer tokens; throws for a bad proof. */
  async function proofKey(client: OAuthClient, context: TokenContext): Promise<string | null> {
    if (context.dpop === undefined) {
      if (client.requireDpop) throw new OAuthError('invalid_dpop_proof', 'this client needs a DPoP proof (the DPoP header) with every token request')
      return null
    }
    const checked = await dpop.verify(context.dpop, { method: 'POST', url: context.url })
    if (!checked.ok) throw new OAuthError('invalid_dpop_proof', checked.reason)
    return checked.jkt
  }

  async function revokeFamily(grantId: string | null): Promise<void> {
    if (!grantId) return
    await repo.revokeGrant(db.kysely, grantId, clock.now().toISOString())
  }

  /**
   * Active access tokens as last read, with the change stamp taken before the read: every bearer call needs its
   * token, and on PostgreSQL the read was most of the call. A token's state is decided by four tables (the token, its
   * grant, its client, the client's application); any change to one of them moves the stamp in every process sharing
   * the database as it commits (OAUTH_CHANGES and APPLICATION_CHANGES), so the next call reads the row again. Expiry
   * is checked on every use against the clock. Unknown and inactive tokens are not remembered (read every time), nor
   * refresh tokens (never active as access tokens). This process's own new tokens move the stamp too (its writes are
   * told whatever they are), other processes' do not (the triggers fire on updates and deletes only).
   */
  // With its expiry as a number: it is checked on every use.
  const remembered = stampedMemory<string, { token: AccessToken; expiresAtMs: number }>({
    changes: db.changes,
    channels: [...repo.OAUTH_CHANGES, APPLICATION_CHANGES],
    nowMs: () => clock.nowMs(),
    maxAgeMs: TOKEN_MEMORY_MS,
    capacity: TOKEN_MEMORY_SIZE,
    usable: (kept, now) => kept.expiresAtMs > now,
  })

  /** Inserts an access token and a refresh token for the grant and builds the response. */
  async function issue(trx: Executor, grantId: string, accessScope: string, refreshScope: string, now: Date, jkt: string | null): Promise<TokenResponse> {
    const accessToken = ACCESS_PREFIX + randomSecret(32)
    const refreshToken = REFRESH_PREFIX + randomSecret(32)
    const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString()
    const created_at = now.toISOString()
    await repo.insertTokens(trx, [
      { token_hash: sha256Hex(accessToken), grant_id: grantId, kind: 'access', scope: accessScope, expires_at: at(ACCESS_TOKEN_TTL_S), used_at: null, created_at },
      { token_hash: sha256Hex(refreshToken), grant_id: grantId, kind: 'refresh', scope: refreshScope, expires_at: at(REFRESH_TOKEN_TTL_S), used_at: null, created_at },
    ])
    return {
      access_token: accessToken,
      token_type: jkt === null ? 'bearer' : 'DPoP',
      refresh_token: refreshToken,
      expires_in: ACCESS_TOKEN_TTL_S,
      scope: accessScope,
      refresh_token_expires_in: REFRESH_TOKEN_TTL_S,
      client_status: 'active',
    }
  }

  /** Requested scopes (a subset of `allowed`), or all of `allowed` when none are asked for. */
  function narrowScope(requested: string | undefined, allowed: readonly string[], what: string): string {
    if (requested === undefined) return formatScope(allowed)
    const scopes = parseScope(requested)
    if (scopes === undefined) throw new OAuthError('invalid_scope', 'scope must be space-separated scope names')
    const refused = scopes.filter((s) => !allowed.includes(s))
    if (refused.length > 0) throw new OAuthError('invalid_scope', `${refused.join(' ')} is not ${what}`)
    return formatScope(scopes.length > 0 ? scopes : allowed)
  }

  function required(fields: TokenRequest, name: keyof TokenRequest): string {
    const value = fields[name]
    if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`)
    return value
  }

  async function authorizationCode(client: OAuthClient, fields: TokenRequest, context: TokenContext): Promise<TokenResponse> {
    const code = required(fields, 'code')
    if (fields.redirect_uri !== undefined && fields.redirect_url !== undefined && fields.redirect_uri !== fields.redirect_url) {
      throw new OAuthError('invalid_request', 'redirect_uri and redirect_url differ')
    }
    const redirectUri = fields.redirect_uri ?? fields.redirect_url
    if (redirectUri === undefined) throw new OAuthError('invalid_request', 'redirect_uri is required')
    const verifier = required(fields, 'code_verifier')
    if (!isCodeVerifier(verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~')

    const codeHash = sha256Hex(code)
    const row = await repo.findCode(db.kysely, codeHash)
    if (!row || row.client_id !== client.id) throw new OAuthError('invalid_grant', 'the authorization code is not valid')
    if (row.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request')
    if (!verifyPkce(verifier, row.code_challenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge')
    // Checked after the client, redirect URI and verifier: only the code's rightful holder can trigger revocation.
    const reused = new OAuthError('invalid_grant', 'the authorization code was already used; the tokens issued for it are revoked')
    if (row.used_at !== null) {
      await revokeFamily(row.grant_id)
      throw reused
    }
    const now = clock.now()
    if (row.expires_at <= now.toISOString()) throw new OAuthError('invalid_grant', 'the authorization code has expired')
    const jkt = await proofKey(client, context)
    // RFC 9449 10: a code bound to a key (dpop_jkt, or the pushed request's proof) is exchanged only with its proof;
    // refused, it stays unspent, as for any other bad proof.
    if (row.dpop_jkt !== null && jkt === null) throw new OAuthError('invalid_dpop_proof', 'the authorization code is bound to a DPoP key: send a DPoP proof signed by it')
    if (row.dpop_jkt !== null && jkt !== row.dpop_jkt) throw new OAuthError('invalid_dpop_proof', 'the DPoP proof is not signed by the key the authorization code is bound to')
    // An organization's client signs in merchant users only (authorize/service.ts): the tokens act for the merchant
    // user's organization, fixed now. Any other client's tokens act for none.
    const organizationId = client.organizationId === null ? null : await deps.merchantUsers.organizationOf(row.customer_id)

    const grantId = randomUUID()
    try {
      return await db.kysely.transaction().execute(async (trx) => {
        await repo.insertGrant(trx, { id: grantId, client_id: client.id, customer_id: row.customer_id, scope: row.scope, created_at: now.toISOString(), revoked_at: null, jkt, organization_id: organizationId })
        if ((await repo.consumeCode(trx, codeHash, now.toISOString(), grantId)) === 0) throw new AlreadySpent()
        return issue(trx, grantId, row.scope, row.scope, now, jkt)
      })
    } catch (err) {
      if (!(err instanceof AlreadySpent)) throw err
      await revokeFamily((await repo.findCode(db.kysely, codeHash))?.grant_id ?? null)
      throw reused
    }
  }

  async function refresh(client: OAuthClient, fields: TokenRequest, context: TokenContext): Promise<TokenResponse> {
    const tokenHash = sha256Hex(required(fields, 'refresh_token'))
    const row = await repo.findToken(db.kysely, tokenHash)
    if (!row || row.kind !== 'refresh' || row.client_id !== client.id) throw new OAuthError('invalid_grant', 'the refresh token is not valid')
    const reused = new OAuthError('invalid_grant', 'the refresh token was already used; every token of its grant is revoked')
    if (row.used_at !== null) {
      await revokeFamily(row.grant_id)
      throw reused
    }
    const now = clock.now()
    if (row.grant_revoked_at !== null) throw new OAuthError('invalid_grant', 'the refresh token has been revoked')
    if (row.expires_at <= now.toISOString()) throw new OAuthError('invalid_grant', 'the refresh token has expired')
    // RFC 6749 6: a refresh may ask for fewer scopes than were granted, never more.
    const accessScope = narrowScope(fields.scope, row.grant_scope.split(' '), 'part of the grant')
    // A DPoP-bound family is refreshed with a proof by the same key, for every client (RFC 9449 5 asks it of
    // public clients; confidential ones gain nothing by an exception); a bearer family stays bearer.
    if (row.jkt === null && context.dpop !== undefined) throw new OAuthError('invalid_dpop_proof', 'the refresh token is a bearer token; send no DPoP proof')
    if (row.jkt !== null && (await proofKey(client, context)) !== row.jkt) throw new OAuthError('invalid_dpop_proof', 'the DPoP proof is not signed by the key the refresh token is bound to')

    try {
      return await db.kysely.transaction().execute(async (trx) => {
        if ((await repo.consumeRefreshToken(trx, tokenHash, now.toISOString())) === 0) throw new AlreadySpent()
        return issue(trx, row.grant_id, accessScope, row.grant_scope, now, row.jkt)
      })
    } catch (err) {
      if (!(err instanceof AlreadySpent)) throw err
      await revokeFamily(row.grant_id)
      throw reused
    }
  }

  async function clientCredentialsGrant(client: OAuthClient, fields: TokenRequest, context: TokenContext): Promise<TokenResponse> {
    // A public client cannot keep a secret, so it cannot prove it is the client (RFC 6749 4.4).
    if (!client.confidential) throw new OAuthError('unauthorized_client', 'client_credentials is for confidential clients only')
    const scope = narrowScope(fields.scope, client.scopes, 'allowed for this client')
    const jkt = await proofKey(client, context)
    const now = clock.now()
    const grantId = randomUUID()
    return db.kysely.transaction().execute(async (trx) => {
      // The client's own token acts for the client's organization, if it has one.
      await repo.insertGrant(trx, { id: grantId, client_id: client.id, customer_id: null, scope, created_at: now.toISOString(), revoked_at: null, jkt, organization_id: client.organizationId })
      return issue(trx, grantId, scope, scope, now, jkt)
    })
  }

  return {
    async token(body, authorization, context) {
      const fields = presentFields(body)
      // Malformed client authentication answers first, as it always has; the secret is checked after the grant type.
      clientCredentials(fields, authorization)
      const grantType = required(fields, 'grant_type')
      if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw new OAuthError('unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}`)
      const { client } = await authenticateClient(fields, authorization, context.source)
      context.authenticated?.(client)
      if (grantType === 'authorization_code') return authorizationCode(client, fields, context)
      if (grantType === 'refresh_token') return refresh(client, fields, context)
      return clientCredentialsGrant(client, fields, context)
    },

    async find(tokenHash): Promise<AccessToken | undefined> {
      const stamp = remembered.stamp()
      const recalled = remembered.recall(tokenHash, stamp)
      if (recalled) return recalled.token
      const row = await repo.findToken(db.kysely, tokenHash)
      if (!row) {
        remembered.forget(tokenHash)
        return undefined
      }
      // A refresh token sent as an access token is found too, inactive: it is a real secret in the wrong place,
      // and must not read as the sandbox's any-string customer.
      const token: AccessToken = {
        clientId: row.client_id,
        applicationId: row.application_id,
        customerId: row.customer_id,
        scopes: row.scope.split(' '),
        expiresAt: row.expires_at,
        jkt: row.jkt,
        organizationId: row.organization_id,
        active: isActive(row, clock.now().toISOString()),
      }
      if (token.active) remembered.keep(tokenHash, stamp, { token, expiresAtMs: Date.parse(row.expires_at) })
      else remembered.forget(tokenHash)
      return token
    },

    recall: (tokenHash) => remembered.recall(tokenHash)?.token,

    async revoke(tokenHash) {
      // Signing out with an OAuth access token ends the whole authorization: its refresh token too.
      const row = await repo.findToken(db.kysely, tokenHash)
      if (row) await revokeFamily(row.grant_id)
    },
  }
}
