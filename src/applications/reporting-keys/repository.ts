// SQL for reporting keys (secrets sealed) and JWT certificates. Takes the database handle or a transaction; the
// service owns the boundary.
import type { CompiledQuery } from 'kysely'
import type { Executor } from '../../platform/db/database.js'
import type { ReportingCertificatesTable, ReportingKeysTable } from '../tables.js'

export type ReportingKeyRow = ReportingKeysTable

// ---- Reporting keys (HTTP Signature key ids and their sealed shared secrets) -----------------------------------

// A signed reporting call reads its key's row when the service has none remembered since the last key change
// (service.ts): the query is compiled once per handle and only re-bound, as the session lookup is (identity/repository.ts).
const keyQueries = new WeakMap<Executor, CompiledQuery<ReportingKeyRow>>()

export async function findReportingKey(db: Executor, id: string): Promise<ReportingKeyRow | undefined> {
  let compiled = keyQueries.get(db)
  if (!compiled) {
    compiled = db.selectFrom('reporting_keys').selectAll().where('id', '=', '').compile()
    keyQueries.set(db, compiled)
  }
  const { rows } = await db.executeQuery({ ...compiled, parameters: [id] })
  return rows[0] as ReportingKeyRow | undefined
}

export async function insertReportingKey(db: Executor, row: ReportingKeyRow): Promise<void> {
  await db.insertInto('reporting_keys').values(row).execute()
}

/** Inserts or replaces the key with this id (the sandbox keys, whose values are constants). */
export async function upsertReportingKey(db: Executor, row: ReportingKeyRow): Promise<void> {
  await db
    .insertInto('reporting_keys')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ organization_id: row.organization_id, secret_sealed: row.secret_sealed, status: 'active', revoked_at: null }))
    .execute()
}

/** Every reporting key, or one organization's, without its sealed secret. */
export function listReportingKeys(db: Executor, organizationId?: string): Promise<Omit<ReportingKeyRow, 'secret_sealed'>[]> {
  let q = db.selectFrom('reporting_keys').select(['id', 'organization_id', 'status', 'created_at', 'revoked_at'])
  if (organizationId !== undefined) q = q.where('organization_id', '=', organizationId)
  return q.orderBy('created_at').orderBy('id').execute()
}

/** Returns the number of rows changed: 0 when the id is unknown, already revoked, or not `organizationId`'s when given. */
export async function revokeReportingKey(db: Executor, id: string, at: string, organizationId?: string): Promise<number> {
  let q = db.updateTable('reporting_keys').set({ status: 'revoked', revoked_at: at }).where('id', '=', id).where('status', '=', 'active')
  if (organizationId !== undefined) q = q.where('organization_id', '=', organizationId)
  const result = await q.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

// ---- Reporting certificates (RS256 JWT verification keys; public, stored as PEM) -------------------------------

export type ReportingCertificateRow = ReportingCertificatesTable

export async function insertReportingCertificate(db: Executor, row: ReportingCertificateRow): Promise<void> {
  await db.insertInto('reporting_certificates').values(row).execute()
}

/** The active certificates whose subject serialNumber is `kid`. */
export function activeReportingCertificates(db: Executor, kid: string): Promise<ReportingCertificateRow[]> {
  return db.selectFrom('reporting_certificates').selectAll().where('kid', '=', kid).where('status', '=', 'active').execute()
}

export function findReportingCertificateByFingerprint(db: Executor, fingerprint: string): Promise<ReportingCertificateRow | undefined> {
  return db.selectFrom('reporting_certificates').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst()
}

export function listReportingCertificates(db: Executor, organizationId?: string): Promise<ReportingCertificateRow[]> {
  let q = db.selectFrom('reporting_certificates').selectAll()
  if (organizationId !== undefined) q = q.where('organization_id', '=', organizationId)
  return q.orderBy('created_at').orderBy('id').execute()
}

/** Returns the number of rows changed: 0 when the id is unknown, already revoked, or not `organizationId`'s when given. */
export async function revokeReportingCertificate(db: Executor, id: string, at: string, organizationId?: string): Promise<number> {
  let q = db.updateTable('reporting_certificates').set({ status: 'revoked', revoked_at: at }).where('id', '=', id).where('status', '=', 'active')
  if (organizationId !== undefined) q = q.where('organization_id', '=', organizationId)
  const result = await q.executeTakeFirst()
  return Number(result.numUpdatedRows)
}
