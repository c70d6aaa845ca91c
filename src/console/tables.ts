// Table types of the merchant console (migration 0021).

/** A console sign-in: found by the SHA-256 of its cookie's token; expires when idle or at its absolute end. */
export interface ConsoleSessionsTable {
  token_hash: string
  customer_id: string
  credential_id: string
  /** The merchant user's own organization. */
  organization_id: string
  /** The organization the user acts for (its own or one below it); null until chosen. */
  acting_organization_id: string | null
  created_at: string
  last_seen_at: string
  idle_expires_at: string
  expires_at: string
  revoked_at: string | null
}

export interface ConsoleTables {
  console_sessions: ConsoleSessionsTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    console: ConsoleTables
  }
}
