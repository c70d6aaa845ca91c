// SQL for the authorization server. Functions take the database handle or a transaction; the services own the
// boundary. Secrets arrive here already hashed.
import type { Insertable, Selectable } from 'kysely'
import { compiledOnce } from '../platform/db/compiled.js'
import type { Executor } from '../platform/db/database.js'
import type { OAuthClientsTable, OAuthCodesTable, OAuthConsentsTable, OAuthGrantsTable, OAuthPushedRequestsTable, OAuthTokensTable } from './tables.js'

export type ClientRow = Selectable<OAuthClientsTable>
export type ConsentRow = Selectable<OAuthConsentsTable>
export type CodeRow = Selectable<OAuthCodesTable>

/**
 * The change channels (platform/db/changes.ts: a table's name) of the tables that decide whether an access token
 * works: tokens, grants, clients (PostgreSQL's triggers: migrations 0028, 0031).
 */
export const OAUTH_CHANGES = ['oauth_tokens', 'oauth_grants', 'oauth_clients'] as const

// ---- Clients -----------------------------------------------------------------------------------------------

export async function insertClient(db: Executor, row: Insertable<OAuthClientsTable>): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute()
}

/**
 * Inserts or resets the row with this id (the sandbox clients, whose settings come from the code). Two processes
 * starting at once both insert: PostgreSQL resolves only the `id` conflict, so the loser can fail on the other
 * unique column (`public_id`) instead; by then the winner's row is committed and one more try updates it.
 */
export async function upsertClient(db: Executor, row: Insertable<OAuthClientsTable>): Promise<void> {
  try {
    await upsertClientOnce(db, row)
  } catch (error) {
    if ((await findClientById(db, row.id)) === undefined) throw error
    await upsertClientOnce(db, row)
  }
}

async function upsertClientOnce(db: Executor, row: Insertable<OAuthClientsTable>): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        name: row.name,
        redirect_uris: row.redirect_uris,
        loopback_redirects: row.loopback_redirects,
        scopes: row.scopes,
        secret_hash: row.secret_hash ?? null,
        require_par: row.require_par,
        require_dpop: row.require_dpop,
        organization_id: row.organization_id ?? null,
        revoked_at: null,
      }),
    )
    .execute()
}

export function findClientById(db: Executor, id: string): Promise<ClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findClientByPublicId(db: Executor, publicId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('public_id', '=', publicId).executeTakeFirst()
}

export function findClientByApplicationId(db: Executor, applicationId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('application_id', '=', applicationId).executeTakeFirst()
}

export function listClients(db: Executor): Promise<ClientRow[]> {
  return db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('id').execute()
}

/** Returns the number of rows changed: 0 when the id is unknown or already revoked. */
export async function revokeClient(db: Executor, id: string, at: string): Promise<number> {
  const result = await db.updateTable('oauth_clients').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
  return Number(result.numUpdatedRows)
}

// ---- Consents (written after the sign-in) ------------------------------------------------------------------

/** Inserts a signed-in consent; false when one was opened from the same pending request already (spent). */
export async function insertConsent(db: Executor, row: Insertable<OAuthConsentsTable>): Promise<boolean> {
  const result = await db
    .insertInto('oauth_consents')
    .values(row)
    .onConflict((oc) => oc.column('request_hash').doNothing())
    .executeTakeFirst()
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}

export async function requestSpent(db: Executor, requestHash: string): Promise<boolean> {
  return (await db.selectFrom('oauth_consents').select('id_hash').where('request_hash', '=', requestHash).executeTakeFirst()) !== undefined
}

export function findConsent(db: Executor, idHash: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('oauth_consents').selectAll().where('id_hash', '=', idHash).executeTakeFirst()
}

/** Marks a signed-in consent answered and returns it: of two concurrent answers, only one gets it. */
export function takeConsent(db: Executor, idHash: string, at: string): Promise<ConsentRow | undefined> {
  return db
    .updateTable('oauth_consents')
    .set({ answered_at: at })
    .where('id_hash', '=', idHash)
    .where('customer_id', 'is not', null)
    .where('answered_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteExpiredConsents(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('oauth_consents').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

// ---- Authorization codes -----------------------------------------------------------------------------------

export async function insertCode(db: Executor, row: Insertable<OAuthCodesTable>): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute()
}

export function findCode(db: Executor, codeHash: string): Promise<CodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst()
}

/** Marks the code used by the grant it created; 0 when it had been used already. */
export async function consumeCode(db: Executor, codeHash: string, at: string, grantId: string): Promise<number> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ used_at: at, grant_id: grantId })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Codes are kept a while past their expiry so that a late replay is still recognised as one. */
export async function deleteCodesExpiredBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('oauth_codes').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

// ---- Grants and tokens -------------------------------------------------------------------------------------

export async function insertGrant(db: Executor, row: Insertable<OAuthGrantsTable>): Promise<void> {
  await db.insertInto('oauth_grants').values(row).execute()
}

export async function revokeGrant(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute()
}

export async function insertTokens(db: Executor, rows: Insertable<OAuthTokensTable>[]): Promise<void> {
  await db.insertInto('oauth_tokens').values(rows).execute()
}

// Every bearer call on the merchant API family looks its token up (and so counts a revocation at once): compiled
// once per handle and only re-bound.
function tokenQuery(db: Executor) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .leftJoin('applications as a', 'a.id', 'c.application_id')
    .select([
      't.kind',
      't.scope',
      't.expires_at',
      't.used_at',
      't.grant_id',
      't.created_at',
      'g.jkt',
      'g.organization_id',
      'g.client_id',
      'g.customer_id',
      'g.scope as grant_scope',
      'g.revoked_at as grant_revoked_at',
      'c.revoked_at as client_revoked_at',
      'c.application_id',
      'a.status as application_status',
    ])
    .where('t.token_hash', '=', '')
}

const tokenLookup = compiledOnce(tokenQuery)

/** A token with what decides whether it still works: its grant, its client and the client's application. */
export async function findToken(db: Executor, tokenHash: string) {
  const [row] = await tokenLookup(db, [tokenHash])
  return row
}
export type TokenRow = NonNullable<Awaited<ReturnType<typeof findToken>>>

/** Expired access and refresh tokens: an unknown token answers exactly as an expired one does. */
export async function deleteTokensExpiredBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('oauth_tokens').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Grants (token families) with no token left, made before `createdBefore` (so never one being issued now). */
export async function deleteEmptyGrantsCreatedBefore(db: Executor, createdBefore: string): Promise<number> {
  const result = await db
    .deleteFrom('oauth_grants')
    .where('created_at', '<', createdBefore)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_tokens').select('oauth_tokens.token_hash').whereRef('oauth_tokens.grant_id', '=', 'oauth_grants.id'))))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Marks a refresh token spent; 0 when it had been spent already. */
export async function consumeRefreshToken(db: Executor, tokenHash: string, at: string): Promise<number> {
  const result = await db
    .updateTable('oauth_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Revokes the grant `tokenHash` belongs to, if that token is the client's; returns whether one was found. */
export async function revokeGrantOfToken(db: Executor, tokenHash: string, clientId: string, at: string): Promise<boolean> {
  const token = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select('t.grant_id')
    .where('t.token_hash', '=', tokenHash)
    .where('g.client_id', '=', clientId)
    .executeTakeFirst()
  if (token) await revokeGrant(db, token.grant_id, at)
  return token !== undefined
}

// ---- Pushed authorization requests (RFC 9126) --------------------------------------------------------------

export async function insertPushedRequest(db: Executor, row: Insertable<OAuthPushedRequestsTable>): Promise<void> {
  await db.insertInto('oauth_pushed_requests').values(row).execute()
}

/** Deletes and returns the client's live pushed request: of two uses, only one gets it. */
export function takePushedRequest(db: Executor, uriHash: string, clientId: string, now: string) {
  return db
    .deleteFrom('oauth_pushed_requests')
    .where('uri_hash', '=', uriHash)
    .where('client_id', '=', clientId)
    .where('expires_at', '>', now)
    .returning(['request'])
    .executeTakeFirst()
}

export async function deleteExpiredPushedRequests(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('oauth_pushed_requests').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
