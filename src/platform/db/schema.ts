// Table types for Kysely. Times are stored as ISO-8601 UTC text so that SQLite and PostgreSQL store and sort
// them identically; amounts (later) are stored as decimal text, never as floats.
import type { Insertable, Selectable } from 'kysely'
import type { ReportClocksTable, ReportEventsTable, ReportInstancesTable, ReportSchedulesTable } from './schema-reports.js'
import type { TransactionDetailsTable, TransactionEventsTable, TransactionSandboxLoadsTable, TransactionTalliesTable, TransactionsTable } from './schema-transactions.js'
import type { WebhookAttemptsTable, WebhookCertificatesTable, WebhookEventsTable, WebhookKeysTable, WebhookNotificationsTable, WebhookSubscriptionsTable } from './schema-webhooks.js'

export type * from './schema-reports.js'
export type * from './schema-transactions.js'
export type * from './schema-webhooks.js'

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

export interface AccountsTable {
  id: string
  customer_id: string
  account_token: string
  position: number
  category: 'domestic' | 'cards' | 'packages'
  account_type: string
  group_id: string | null
  is_visible: number
  list_json: string
  balance_json: string
  threshold_json: string | null
  details_json: string
}

export interface ExchangeRatesTable {
  from_currency: string
  to_currency: string
  rate: string
}

export interface OAuthClientsTable {
  id: string
  name: string
  /** The generated client_id; null for a client whose client_id is its application's key. */
  public_id: string | null
  application_id: string | null
  /** scrypt hash of the client secret; null for a public client. Never selected into a response. */
  secret_hash: string | null
  /** JSON array of exact redirect URIs. */
  redirect_uris: string
  loopback_redirects: number
  /** Space-separated. */
  scopes: string
  created_at: string
  revoked_at: string | null
  /** 1: the client must push its authorization requests (RFC 9126). */
  require_par: number
  /** 1: every token request must carry a DPoP proof (RFC 9449). */
  require_dpop: number
  /** The organization the client belongs to (0014): its client_credentials tokens act for it; it signs in merchant users. */
  organization_id: string | null
}

/** A pushed authorization request (RFC 9126), single-use, until it expires. */
export interface OAuthPushedRequestsTable {
  uri_hash: string
  client_id: string
  request: string
  expires_at: string
  created_at: string
}

/**
 * Credentials already used (platform/replay-guard.ts): a digest naming one (a DPoP proof, a JWT id, a signed write's
 * HTTP Signature), the uses spent, and until when it could be accepted.
 */
export interface ReplayGuardTable {
  key_hash: string
  uses: number
  expires_at: string
}

/** An authorization request between the authorize page's sign-in and its Allow/Deny answer. */
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

export interface OAuthConsentsTable {
  /** SHA-256 of the value the page's forms carry. */
  id_hash: string
  /** SHA-256 of the browser-binding cookie. */
  browser_hash: string
  client_id: string
  redirect_uri: string
  scope: string
  state: string | null
  code_challenge: string
  brand: string
  lob: string
  /** Null only in rows from before 0008, when a consent was written before the sign-in. */
  customer_id: string | null
  expires_at: string
  created_at: string
  /** SHA-256 of the signed pending request it was opened from (spent by the sign-in); unique. */
  request_hash: string | null
  /** When Allow or Deny answered it; an answered consent is kept until it expires. */
  answered_at: string | null
  /** RFC 7638 thumbprint of the DPoP key the code will be bound to (0019); null: not bound. */
  dpop_jkt: string | null
}

export interface OAuthCodesTable {
  /** SHA-256 of the authorization code. */
  code_hash: string
  client_id: string
  customer_id: string
  redirect_uri: string
  code_challenge: string
  scope: string
  expires_at: string
  used_at: string | null
  grant_id: string | null
  created_at: string
  /** RFC 7638 thumbprint of the DPoP key the code is bound to (RFC 9449 10, 0019): exchanged only with its proof. */
  dpop_jkt: string | null
}

/** One token family: what one authorization (or one client_credentials call) issued, revoked as a whole. */
export interface OAuthGrantsTable {
  id: string
  client_id: string
  customer_id: string | null
  scope: string
  created_at: string
  revoked_at: string | null
  /** RFC 7638 thumbprint of the DPoP key the grant's tokens are bound to; null for bearer tokens. */
  jkt: string | null
  /** The organization the grant's tokens act for on /reporting/v3 (0014), fixed when it is made; null for none. */
  organization_id: string | null
}

export interface OAuthTokensTable {
  /** SHA-256 of the access or refresh token. */
  token_hash: string
  grant_id: string
  kind: 'access' | 'refresh'
  scope: string
  expires_at: string
  used_at: string | null
  created_at: string
}

export type JobStatus = 'pending' | 'running' | 'done' | 'failed'

/** Work to do later and again; see src/platform/jobs/. */
export interface JobsTable {
  id: string
  kind: string
  /** JSON text. */
  payload: string
  status: JobStatus
  /** When a pending job is due (after a failure: when its retry is). */
  run_at: string
  attempts: number
  max_attempts: number
  /** The worker that claimed a running job, until lease_expires_at; after that anyone may claim it again. */
  lease_owner: string | null
  lease_expires_at: string | null
  last_error: string | null
  idempotency_key: string | null
  created_at: string
  updated_at: string
  finished_at: string | null
}

/** One stored blob's current version; its bytes are blob_chunks rows of version_id. */
export interface BlobsTable {
  key: string
  version_id: string
  size: number
  sha256: string
  content_type: string | null
  chunk_size: number
  created_at: string
}

export interface BlobChunksTable {
  version_id: string
  seq: number
  data: Buffer
}


export type OrganizationType = 'reseller' | 'account' | 'merchant'

/** A reseller, account or merchant; the id is the merchant id clients send (`v-c-merchant-id`, `organizationId`). */
export interface OrganizationsTable {
  id: string
  type: OrganizationType
  parent_id: string | null
  name: string
  created_at: string
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

/** A report subscription of one organization; the list members are JSON text. */
export interface ReportSubscriptionsTable {
  organization_id: string
  report_name: string
  subscription_type: 'CUSTOM' | 'CLASSIC' | 'STANDARD'
  subscription_status: 'ACTIVE' | 'INACTIVE'
  report_definition_name: string
  report_mime_type: string
  report_frequency: string
  report_interval: string | null
  timezone: string
  /** HHMM */
  start_time: string
  start_day: number | null
  report_fields: string
  report_filters: string
  report_preferences: string
  group_name: string | null
  created_at: string
  updated_at: string
}

export interface Database {
  applications: ApplicationsTable
  settings: SettingsTable
  customers: CustomersTable
  credentials: CredentialsTable
  sessions: SessionsTable
  source_sign_in_failures: SourceSignInFailuresTable
  accounts: AccountsTable
  exchange_rates: ExchangeRatesTable
  oauth_clients: OAuthClientsTable
  oauth_consents: OAuthConsentsTable
  oauth_codes: OAuthCodesTable
  oauth_grants: OAuthGrantsTable
  oauth_tokens: OAuthTokensTable
  oauth_pushed_requests: OAuthPushedRequestsTable
  replay_guard: ReplayGuardTable
  jobs: JobsTable
  blobs: BlobsTable
  blob_chunks: BlobChunksTable
  transactions: TransactionsTable
  transaction_sandbox_loads: TransactionSandboxLoadsTable
  transaction_tallies: TransactionTalliesTable
  transaction_events: TransactionEventsTable
  transaction_details: TransactionDetailsTable
  organizations: OrganizationsTable
  reporting_keys: ReportingKeysTable
  reporting_certificates: ReportingCertificatesTable
  report_subscriptions: ReportSubscriptionsTable
  report_instances: ReportInstancesTable
  report_schedules: ReportSchedulesTable
  report_events: ReportEventsTable
  report_clocks: ReportClocksTable
  webhook_keys: WebhookKeysTable
  webhook_certificates: WebhookCertificatesTable
  webhook_subscriptions: WebhookSubscriptionsTable
  webhook_events: WebhookEventsTable
  webhook_notifications: WebhookNotificationsTable
  webhook_attempts: WebhookAttemptsTable
}

export type ApplicationRow = Selectable<ApplicationsTable>
export type NewApplicationRow = Insertable<ApplicationsTable>
