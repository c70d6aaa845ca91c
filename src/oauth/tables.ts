// Table types of the authorization server (migrations 0003, 0008, 0012, 0014 and 0019). Every secret is stored as
// a hash only.

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

/** An authorization request between the authorize page's sign-in and its Allow/Deny answer. */
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

/** A pushed authorization request (RFC 9126), single-use, until it expires. */
export interface OAuthPushedRequestsTable {
  uri_hash: string
  client_id: string
  request: string
  expires_at: string
  created_at: string
}

/** OAuth's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface OAuthTables {
  oauth_clients: OAuthClientsTable
  oauth_consents: OAuthConsentsTable
  oauth_codes: OAuthCodesTable
  oauth_grants: OAuthGrantsTable
  oauth_tokens: OAuthTokensTable
  oauth_pushed_requests: OAuthPushedRequestsTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    oauth: OAuthTables
  }
}
