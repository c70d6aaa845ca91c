// SQL for customers, credentials and sessions. Functions take the database handle or a transaction; the service
// (or the importer, through identity/import.ts) owns the transaction boundary. Secrets arrive here already hashed.
import { sql, type CompiledQuery, type Insertable, type Selectable } from 'kysely'
import type { Executor } from '../platform/db/database.js'
import type { CredentialsTable, CustomersTable, SessionsTable } from './tables.js'

export type CredentialRow = Selectable<CredentialsTable>
export type SessionRow = Selectable<SessionsTable>
export type CustomerRow = Selectable<CustomersTable>

// ---- Customers ---------------------------------------------------------------------------------------------

export function findCustomer(db: Executor, id: string): Promise<CustomerRow | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The first of `ids` that already exists, if any. */
export async function firstExistingCustomer(db: Executor, ids: string[]): Promise<string | undefined> {
  if (ids.length === 0) return undefined
  return (await db.selectFrom('customers').select('id').where('id', 'in', ids).executeTakeFirst())?.id
}

/**
 * The customers `reference` names: the one with that id, else those with a credential found by it as typed (a
 * username or a device id; party identifiers and soft credentials are stored hashed, so never match).
 */
export async function customersNamed(db: Executor, reference: string): Promise<string[]> {
  if (await findCustomer(db, reference)) return [reference]
  const rows = await db.selectFrom('credentials').select('customer_id').distinct().where('lookup_key', '=', reference).where('kind', 'not in', ['partyIdentifiers', 'token']).orderBy('customer_id').execute()
  return rows.map((r) => r.customer_id)
}

/** A few customer ids, account holders' first (merchant users have `finapi users list`), oldest first. */
export async function someCustomerIds(db: Executor, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('customers').select('id').orderBy(sql`organization_id is not null`).orderBy('created_at').orderBy('id').limit(limit).execute()
  return rows.map((r) => r.id)
}

export async function insertCustomers(db: Executor, rows: Insertable<CustomersTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('customers').values(rows).execute()
}

// ---- Credentials -------------------------------------------------------------------------------------------

export function findCredential(db: Executor, brand: string, lob: string, kind: string, lookupKey: string): Promise<CredentialRow | undefined> {
  return db
    .selectFrom('credentials')
    .selectAll()
    .where('brand', '=', brand)
    .where('lob', '=', lob)
    .where('kind', '=', kind)
    .where('lookup_key', '=', lookupKey)
    .executeTakeFirst()
}

export interface CredentialKey {
  brand: string
  lob: string
  kind: string
  lookupKey: string
}

/** The first of `keys` that a stored credential already has, if any. */
export async function firstExistingCredential(db: Executor, keys: CredentialKey[]): Promise<CredentialKey | undefined> {
  if (keys.length === 0) return undefined
  const row = await db
    .selectFrom('credentials')
    .select(['brand', 'lob', 'kind', 'lookup_key'])
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('brand', '=', k.brand), eb('lob', '=', k.lob), eb('kind', '=', k.kind), eb('lookup_key', '=', k.lookupKey)]))))
    .executeTakeFirst()
  return row && { brand: row.brand, lob: row.lob, kind: row.kind, lookupKey: row.lookup_key }
}

export async function insertCredentials(db: Executor, rows: Insertable<CredentialsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('credentials').values(rows).execute()
}

/**
 * Counts one failure, atomically: concurrent failures each add one, so none is lost between reading the count and
 * writing it back. The failure that reaches `maxAttempts` locks the credential until `lockUntil` and resets the
 * count, in the same statement. A credential that is revoked or already locked is left as it is (undefined).
 */
export async function recordFailure(db: Executor, id: string, now: string, maxAttempts: number, lockUntil: string): Promise<{ failedAttempts: number; lockedUntil: string | null } | undefined> {
  const reaches = sql<boolean>`failed_attempts + 1 >= ${maxAttempts}`
  const row = await db
    .updateTable('credentials')
    .set({
      failed_attempts: sql<number>`case when ${reaches} then 0 else failed_attempts + 1 end`,
      locked_until: sql<string | null>`case when ${reaches} then ${lockUntil} else null end`,
    })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning(['failed_attempts', 'locked_until'])
    .executeTakeFirst()
  return row && { failedAttempts: row.failed_attempts, lockedUntil: row.locked_until }
}

/**
 * Records a success: clears the failure count, and optionally stores a new lookup key (re-keying a legacy row).
 * Applies only while the credential is neither revoked nor locked at this moment, so a lock or revocation that
 * landed while the secret was being checked still wins. Returns whether it applied.
 */
export async function recordSuccess(db: Executor, id: string, now: string, newLookupKey?: string): Promise<boolean> {
  const result = await db
    .updateTable('credentials')
    .set({ failed_attempts: 0, locked_until: null, ...(newLookupKey === undefined ? {} : { lookup_key: newLookupKey }) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

// ---- Sign-in failures per source address (sandbox) ---------------------------------------------------------

/** Whether this credential is locked for this source address at `now`. */
export async function sourceLocked(db: Executor, credentialId: string, source: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('source_sign_in_failures')
    .select('credential_id')
    .where('credential_id', '=', credentialId)
    .where('source', '=', source)
    .where('locked_until', '>', now)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Counts one failure of the credential from the source, atomically: one upsert that adds one (or starts again at
 * one when the row's window `expires_at` has passed), and the failure that reaches `maxAttempts` locks the pair
 * until `until` and resets the count, in the same statement. A pair that is locked is left as it is. `until` is
 * also the new end of the counting window.
 */
export async function recordSourceFailure(db: Executor, credentialId: string, source: string, now: string, maxAttempts: number, until: string): Promise<void> {
  const next = sql<number>`case when source_sign_in_failures.expires_at <= ${now} then 1 else source_sign_in_failures.failed_attempts + 1 end`
  const reaches = sql<boolean>`${next} >= ${maxAttempts}`
  const lockedAtOnce = maxAttempts <= 1
  await db
    .insertInto('source_sign_in_failures')
    .values({ credential_id: credentialId, source, failed_attempts: lockedAtOnce ? 0 : 1, locked_until: lockedAtOnce ? until : null, expires_at: until })
    .onConflict((oc) =>
      oc
        .columns(['credential_id', 'source'])
        .doUpdateSet({
          failed_attempts: sql<number>`case when ${reaches} then 0 else ${next} end`,
          locked_until: sql<string | null>`case when ${reaches} then ${until} else null end`,
          expires_at: until,
        })
        .where((eb) => eb.or([eb('source_sign_in_failures.locked_until', 'is', null), eb('source_sign_in_failures.locked_until', '<=', now)])),
    )
    .execute()
}

/**
 * Records a success from the source: forgets its failures. Returns false, changing nothing, when the pair is
 * locked at this moment, so a lock that landed while the secret was being checked still wins.
 */
export async function clearSourceFailures(db: Executor, credentialId: string, source: string, now: string): Promise<boolean> {
  const result = await db
    .deleteFrom('source_sign_in_failures')
    .where('credential_id', '=', credentialId)
    .where('source', '=', source)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst()
  return result.numDeletedRows > 0n || !(await sourceLocked(db, credentialId, source, now))
}

/** Pairs whose window and lock have both ended: they count for nothing any more. */
export async function deleteExpiredSourceFailures(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('source_sign_in_failures').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export function listCredentials(db: Executor, customerId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'kind', 'brand', 'lob', 'token_type', 'restricted', 'locked_until', 'revoked_at', 'created_at'])
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

/**
 * Revokes the customer's live soft credentials beyond the newest `keep` other than `exceptId` (the one just
 * created, which is never its own victim). Returns the ids revoked. One statement, so two concurrent trims agree
 * on the order (created_at, then id) and never revoke one of the newest `keep`.
 */
export async function revokeSoftCredentialsBeyond(db: Executor, customerId: string, exceptId: string, keep: number, at: string): Promise<string[]> {
  const beyond = db
    .selectFrom('credentials')
    .select('id')
    .where('customer_id', '=', customerId)
    .where('kind', '=', 'token')
    .where('revoked_at', 'is', null)
    .where('id', '!=', exceptId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    // SQLite takes OFFSET only after a LIMIT; this one never binds.
    .limit(Number.MAX_SAFE_INTEGER)
    .offset(keep)
  const rows = await db.updateTable('credentials').set({ revoked_at: at }).where('id', 'in', beyond).where('revoked_at', 'is', null).returning('id').execute()
  return rows.map((r) => r.id)
}

/** Soft credentials revoked before `before`: every session they opened has ended and been pruned by then. */
export async function deleteSoftCredentialsRevokedBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('credentials').where('kind', '=', 'token').where('revoked_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function revokeCredential(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('credentials').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
  return result.numUpdatedRows > 0n
}

// ---- Sessions ----------------------------------------------------------------------------------------------

/** Ends every session the credentials opened that has not ended yet. */
export async function revokeSessionsOf(db: Executor, credentialIds: string | string[], at: string): Promise<void> {
  const ids = typeof credentialIds === 'string' ? [credentialIds] : credentialIds
  if (ids.length === 0) return
  await db.updateTable('sessions').set({ revoked_at: at }).where('credential_id', 'in', ids).where('revoked_at', 'is', null).where('expires_at', '>', at).execute()
}

/** Sessions that ended (expired, or revoked and since expired) before `before`: they can never be used again. */
export async function deleteSessionsExpiredBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function insertSession(db: Executor, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

// Every authenticated call looks its session up, so the query is compiled once per handle and only re-bound:
// building and compiling it each time cost more than running it.
const sessionQueries = new WeakMap<Executor, CompiledQuery<SessionRow>>()

export async function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  let compiled = sessionQueries.get(db)
  if (!compiled) {
    compiled = db.selectFrom('sessions').selectAll().where('token_hash', '=', '').compile()
    sessionQueries.set(db, compiled)
  }
  const { rows } = await db.executeQuery({ ...compiled, parameters: [tokenHash] })
  return rows[0] as SessionRow | undefined
}

export async function revokeSession(db: Executor, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: at }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute()
}

// ---- Merchant users (customers of an organization, with one merchantUser credential) ------------------------

/** The organization a customer belongs to: set for merchant users, null for account holders. */
export async function customerOrganization(db: Executor, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('customers').select('organization_id').where('id', '=', id).executeTakeFirst()
  return row && row.organization_id
}

/** Inserts the customer unless its id is taken (two sandbox starts at once); returns whether it did. */
export async function insertCustomerIfAbsent(db: Executor, row: Insertable<CustomersTable>): Promise<boolean> {
  const result = await db.insertInto('customers').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}

/**
 * Inserts the credential, or (same realm, kind and lookup key) gives the existing one this secret and makes it
 * usable again: revoked or locked, it is active after a sandbox start, as the sandbox keys are.
 */
export async function upsertCredential(db: Executor, row: Insertable<CredentialsTable>): Promise<void> {
  await db
    .insertInto('credentials')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['brand', 'lob', 'kind', 'lookup_key']).doUpdateSet({ secret_hash: row.secret_hash ?? null, failed_attempts: 0, locked_until: null, revoked_at: null }),
    )
    .execute()
}

/** Merchant users with their credential (never its hash) and whether each has `role`; of one organization, or all. */
export function listMerchantUsers(db: Executor, kind: string, role: string, filter: { organizationId?: string; id?: string; username?: string } = {}) {
  let query = db
    .selectFrom('customers as c')
    .innerJoin('credentials as k', 'k.customer_id', 'c.id')
    .leftJoin('merchant_user_roles as r', (j) => j.onRef('r.customer_id', '=', 'c.id').on('r.role', '=', role))
    .select(['c.id', 'c.organization_id', 'c.created_at', 'k.id as credential_id', 'k.lookup_key as username', 'k.locked_until', 'k.revoked_at', 'r.role'])
    .where('c.organization_id', 'is not', null)
    .where('k.kind', '=', kind)
  if (filter.organizationId !== undefined) query = query.where('c.organization_id', '=', filter.organizationId)
  if (filter.id !== undefined) query = query.where('c.id', '=', filter.id)
  if (filter.username !== undefined) query = query.where('k.lookup_key', '=', filter.username)
  return query.orderBy('c.created_at').orderBy('c.id').execute()
}

export async function hasRole(db: Executor, customerId: string, role: string): Promise<boolean> {
  return (await db.selectFrom('merchant_user_roles').select('role').where('customer_id', '=', customerId).where('role', '=', role).executeTakeFirst()) !== undefined
}

export async function grantRole(db: Executor, customerId: string, role: string, at: string): Promise<void> {
  await db.insertInto('merchant_user_roles').values({ customer_id: customerId, role, granted_at: at }).onConflict((oc) => oc.columns(['customer_id', 'role']).doNothing()).execute()
}

export async function takeRole(db: Executor, customerId: string, role: string): Promise<void> {
  await db.deleteFrom('merchant_user_roles').where('customer_id', '=', customerId).where('role', '=', role).execute()
}
