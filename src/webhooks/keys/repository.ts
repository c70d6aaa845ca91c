// Webhook signing key rows and message-level encryption certificates. The sealed secret is read only to sign;
// nothing that builds a response selects it.
import type { Executor } from '../../platform/db/database.js'
import type { WebhookCertificatesTable, WebhookKeysTable } from '../tables.js'

export type KeyRow = WebhookKeysTable
export type CertificateRow = WebhookCertificatesTable

/** False when the id is taken. */
export async function insertKey(db: Executor, row: KeyRow): Promise<boolean> {
  const result = await db.insertInto('webhook_keys').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}

export function findKey(db: Executor, id: string): Promise<KeyRow | undefined> {
  return db.selectFrom('webhook_keys').selectAll().where('id', '=', id).executeTakeFirst()
}

/** A key as a list shows it: everything but the sealed secret. */
export type KeyListing = Omit<KeyRow, 'secret_sealed'>

/** The organization's keys, newest first, without their secrets. */
export function listKeys(db: Executor, organizationId: string): Promise<KeyListing[]> {
  return db
    .selectFrom('webhook_keys')
    .select(['id', 'organization_id', 'key_type', 'provider', 'tenant', 'client_key_id', 'client_reference_code', 'status', 'created_at', 'expires_at'])
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
}

/** ACTIVE → REVOKED; false when it was not active. */
export async function revokeKey(db: Executor, id: string): Promise<boolean> {
  const res = await db.updateTable('webhook_keys').set({ status: 'REVOKED' }).where('id', '=', id).where('status', '=', 'ACTIVE').executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** The organization's newest key that is active and not expired at `now`. */
export function newestUsableKey(db: Executor, organizationId: string, now: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('webhook_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'ACTIVE')
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** False when the id is taken. */
export async function insertCertificate(db: Executor, row: CertificateRow): Promise<boolean> {
  const result = await db.insertInto('webhook_certificates').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}
