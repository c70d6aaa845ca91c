// Table types of application keys (banking) and of organizations' reporting keys and JWT certificates (migrations
// 0001, 0010 and 0014). Times are ISO-8601 UTC text, as everywhere.
import type { Insertable, Selectable } from 'kysely'

export interface ApplicationsTable {
  id: string
  name: string
  /** SHA-256 of the key; the key itself is shown once and never stored. */
  key_hash: string
  /** The first characters of the key, so an operator can tell keys apart in a listing. */
  key_prefix: string
  status: 'active' | 'revoked'
  created_at: string
  revoked_at: string | null
}

/** A reporting key: the key id clients send as `keyid`, and its shared secret sealed under SECRETS_KEY. */
export interface ReportingKeysTable {
  id: string
  organization_id: string
  /** AES-256-GCM sealed base64 secret; never selected into a response or a log line. */
  secret_sealed: string
  status: 'active' | 'revoked'
  created_at: string
  revoked_at: string | null
}

/** A certificate whose key signs an organization's RS256 JWTs; `kid` is its subject's serialNumber. */
export interface ReportingCertificatesTable {
  id: string
  organization_id: string
  kid: string
  /** PEM (public). */
  certificate: string
  /** SHA-256 of the DER, hex; unique. */
  fingerprint: string
  not_before: string
  not_after: string
  status: 'active' | 'revoked'
  created_at: string
  revoked_at: string | null
}

export type ApplicationRow = Selectable<ApplicationsTable>

export type NewApplicationRow = Insertable<ApplicationsTable>

/** The application and reporting keys' tables, by name: their owner's part of the Database type (platform/db/schema.ts). */
export interface ApplicationsTables {
  applications: ApplicationsTable
  reporting_keys: ReportingKeysTable
  reporting_certificates: ReportingCertificatesTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    applications: ApplicationsTables
  }
}
