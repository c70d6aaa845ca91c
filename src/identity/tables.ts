// Table types of customers, their credentials and sessions (migrations 0002, 0004, 0007 and 0014), and merchant
// users' roles (0023).

export interface CustomersTable {
  id: string
  brand: string
  lob: string
  is_business: number
  created_at: string
  /** Set for a merchant user (0014): the organization whose reports it may let a partner's client read. */
  organization_id: string | null
}

export interface CredentialsTable {
  id: string
  customer_id: string
  kind: string
  brand: string
  lob: string
  lookup_key: string
  /** scrypt hash of the secret; never selected by anything that builds a response. */
  secret_hash: string | null
  /** SPKI PEM of a registered device's Ed25519 key (deviceRegIdPasscode). */
  public_key: string | null
  token_type: string | null
  restricted: number
  failed_attempts: number
  locked_until: string | null
  revoked_at: string | null
  created_at: string
}

export interface SessionsTable {
  /** SHA-256 of the Authorization token. */
  token_hash: string
  customer_id: string
  restricted: number
  expires_at: string
  revoked_at: string | null
  created_at: string
  /** The credential that opened the session (null for sessions opened before migration 0004). */
  credential_id: string | null
}

/** Sandbox only: sign-in failures of one credential from one source address, and that pair's lock. */
export interface SourceSignInFailuresTable {
  credential_id: string
  /** The client's address as the server saw it (request.ip). */
  source: string
  failed_attempts: number
  locked_until: string | null
  /** When the row stops counting: 15 minutes after the last failure, or the end of the lock. */
  expires_at: string
}

/** A role a merchant user has (0023): 'operator', given and taken back with the CLI. */
export interface MerchantUserRolesTable {
  customer_id: string
  role: string
  granted_at: string
}

/** Identity's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface IdentityTables {
  customers: CustomersTable
  credentials: CredentialsTable
  sessions: SessionsTable
  source_sign_in_failures: SourceSignInFailuresTable
  merchant_user_roles: MerchantUserRolesTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    identity: IdentityTables
  }
}
