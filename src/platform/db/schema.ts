// Table types for Kysely. Times are stored as ISO-8601 UTC text so that SQLite and PostgreSQL store and sort
// them identically; amounts (later) are stored as decimal text, never as floats.
import type { Generated, Insertable, Selectable } from 'kysely'

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

/** Small operational switches shared by every server process on the database (e.g. maintenance). */
export interface SettingsTable {
  key: string
  value: string
  updated_at: string
}

export interface Database {
  applications: ApplicationsTable
  settings: SettingsTable
}

export type ApplicationRow = Selectable<ApplicationsTable>
export type NewApplicationRow = Insertable<ApplicationsTable>
// Re-exported for features that declare generated columns.
export type { Generated }
