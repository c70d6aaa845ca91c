// The identity module's vocabulary: who a request acts for (Principal), what a caller claims when signing in
// (Claim), and the interface through which OAuth access tokens are resolved without identity importing OAuth.

/** A principal from a login session (`POST /v2/auth`, or a sign-in page that opened one). */
export interface SessionPrincipal {
  source: 'session'
  customerId: string
  /** The credential that opened it only allows application tracking (party identifiers). */
  restricted: boolean
  /** SHA-256 of the presented token: what ends the session. */
  tokenHash: string
}

/** A principal from a working OAuth access token. What it may do is the feature's rule (scope, application). */
export interface AccessTokenPrincipal {
  source: 'oauth'
  /** The account holder who granted it; null for a client's own (client_credentials) token. */
  customerId: string | null
  /** The OAuth client's internal id. */
  clientId: string
  /** The application whose key is the client_id (a banking client), or null. */
  applicationId: string | null
  scopes: readonly string[]
  expiresAt: string
  tokenHash: string
  /** The RFC 7638 thumbprint of the DPoP key the token is bound to (RFC 9449), or null for a bearer token. */
  jkt: string | null
  /** The organization the token acts for on the reporting interface (its client's, or its merchant user's), or null. */
  organizationId: string | null
}

/** Who a presented Authorization/bearer string acts for. */
export type Principal = SessionPrincipal | AccessTokenPrincipal

/** An OAuth access token as identity sees it. The OAuth token service builds it; passed in at wiring. */
export interface AccessToken {
  clientId: string
  applicationId: string | null
  customerId: string | null
  scopes: readonly string[]
  expiresAt: string
  /** The thumbprint of the DPoP key the token is bound to, or null for a bearer token. */
  jkt: string | null
  /** The organization it acts for on the reporting interface, fixed when its grant was made; null for none. */
  organizationId: string | null
  /** Not expired and not revoked (itself, its refresh family, its client or its application). */
  active: boolean
}

/** Implemented by the OAuth token service. Identity never imports OAuth: app.ts passes this in. */
export interface AccessTokenResolver {
  /**
   * The token stored under this SHA-256, active or not, or undefined when there is none. A refresh token is found
   * too, inactive: it is a real secret in the wrong place and must be refused, not treated as unknown.
   */
  find(tokenHash: string): Promise<AccessToken | undefined>
  /**
   * An active access token this process read since nothing that decides its state changed anywhere, without waiting
   * (the hot path of bearer calls); undefined means "ask find", never "unknown".
   */
  recall(tokenHash: string): AccessToken | undefined
  /** Ends the whole authorization the access token belongs to (its refresh token too). */
  revoke(tokenHash: string): Promise<void>
}

/** The identity kinds of credential. Each is looked up by an identifier and proven by a secret. */
export const CREDENTIAL_KINDS = [
  'usernamePassword',
  'deviceRegIdPasscode',
  'deviceRegIdPassword',
  'deviceRegIdFingerprint',
  'ivrPasscode',
  'partyIdentifiers',
  'token',
] as const
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number]

export interface PartyIdentifiers {
  firstGivenName: string
  surname: string
  /** YYYYMMDD */
  dateOfBirth: string
}

/** What a caller presents to sign in. Mapping a wire format onto a claim is the feature's business. */
export type Claim =
  | { kind: 'usernamePassword' | 'deviceRegIdPassword' | 'deviceRegIdFingerprint' | 'ivrPasscode'; identifier: string; secret: string }
  /** The passcode, and a signature by the device's registered Ed25519 key over `signed.message`. */
  | { kind: 'deviceRegIdPasscode'; identifier: string; secret: string; signed: { message: string; signature: string } }
  /** Found by a keyed hash of the party identifiers; proven by the mobile on record, which must be presented. */
  | { kind: 'partyIdentifiers'; party: PartyIdentifiers; mobile: string | undefined }
  /** A soft credential: the token is the whole secret. */
  | { kind: 'token'; token: string }
  /**
   * A merchant user's username and password (the consent page of a client of an organization). A kind of its own,
   * outside CREDENTIAL_KINDS, so no banking login can ever present it.
   */
  | { kind: typeof MERCHANT_USER_KIND; identifier: string; secret: string }

/** The credential kind of merchant users, and the one realm (brand and lob) they are all found in. */
export const MERCHANT_USER_KIND = 'merchantUser'
export const MERCHANT_USER_REALM = { brand: 'merchant', lob: 'reporting' } as const

/** A credential that has just proven its claim. */
export interface VerifiedCredential {
  id: string
  customerId: string
  restricted: boolean
}

/** A new credential for the importer. Secrets arrive in plain (hashed here) or as an existing scrypt hash. */
export type NewCredential =
  | { kind: Exclude<CredentialKind, 'partyIdentifiers' | 'token' | 'deviceRegIdPasscode'>; identifier: string; secret?: string; secretHash?: string }
  | { kind: 'deviceRegIdPasscode'; identifier: string; secret?: string; secretHash?: string; publicKey: string }
  | { kind: 'partyIdentifiers'; party: PartyIdentifiers; mobile: string }

export interface NewCustomer {
  id: string
  brand: string
  lob: string
  isBusiness: boolean
  credentials: NewCredential[]
}

/** A credential as operators see it: never its secret, hash or lookup key. */
export interface CredentialSummary {
  id: string
  kind: string
  brand: string
  lob: string
  /** For soft credentials: softcredential or touch. */
  tokenType: string | null
  restricted: boolean
  status: 'active' | 'locked' | 'revoked'
  createdAt: string
}
