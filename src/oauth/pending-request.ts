// The authorization request while the account holder signs in, kept by the browser instead of the database: the
// sign-in form's hidden field carries it as base64url JSON plus an HMAC-SHA256 under a key derived from
// SECRETS_KEY, so an unauthenticated GET of the authorize page writes nothing. It names its expiry and the
// browser it was opened in (a hash of the browser-binding cookie), and is size-bounded before anything is parsed.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../platform/crypto.js'

export const PENDING_REQUEST_PURPOSE = 'finapi/oauth/pending-consent/v1'
/** The longest sealed value accepted; a request that would seal longer is refused when the page is opened. */
export const MAX_PENDING_REQUEST_LENGTH = 8192
const MAC_BYTES = 32
const BASE64URL = /^[A-Za-z0-9_-]+$/

/** A checked authorization request: what the client asked for, pushed (PAR) or waiting on the sign-in page. */
export interface CheckedAuthorizeRequest {
  redirectUri: string
  scope: string
  state: string | null
  codeChallenge: string
  brand: string
  lob: string
  /** RFC 9449 10: the thumbprint of the DPoP key the code is bound to (dpop_jkt, or the pushed request's proof). */
  dpopJkt: string | null
}

export interface PendingRequest extends CheckedAuthorizeRequest {
  /** The client's internal id. */
  clientId: string
  /** SHA-256 (hex) of the browser-binding cookie the page was opened with. */
  browserHash: string
  /** Milliseconds since the epoch after which the request no longer works. */
  expiresAt: number
}

export function pendingRequestKey(secretsKey: string): Buffer {
  return deriveKey(secretsKey, PENDING_REQUEST_PURPOSE)
}

const mac = (key: Buffer, encoded: string) => createHmac('sha256', key).update(encoded, 'ascii').digest()

export function sealPendingRequest(key: Buffer, request: PendingRequest): string {
  const encoded = Buffer.from(JSON.stringify(request), 'utf8').toString('base64url')
  return `${encoded}.${mac(key, encoded).toString('base64url')}`
}

/** The request the value seals, or undefined when it is too long, malformed, forged or expired at `now` (ms). */
export function openPendingRequest(key: Buffer, value: string, now: number): PendingRequest | undefined {
  if (value.length > MAX_PENDING_REQUEST_LENGTH) return undefined
  const [encoded, tag, ...rest] = value.split('.')
  if (!encoded || !tag || rest.length > 0 || !BASE64URL.test(encoded) || !BASE64URL.test(tag)) return undefined
  const presented = Buffer.from(tag, 'base64url')
  if (presented.length !== MAC_BYTES || !timingSafeEqual(presented, mac(key, encoded))) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  const request = shaped(parsed)
  return request && request.expiresAt > now ? request : undefined
}

/** Authenticated values are ours, but an old format or a bug should fail closed rather than half-work. */
function shaped(value: unknown): PendingRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const v = value as Record<string, unknown>
  const strings = ['clientId', 'redirectUri', 'scope', 'codeChallenge', 'brand', 'lob', 'browserHash'] as const
  if (!strings.every((k) => typeof v[k] === 'string')) return undefined
  if (v['state'] !== null && typeof v['state'] !== 'string') return undefined
  if (typeof v['expiresAt'] !== 'number') return undefined
  // Sealed before codes could be bound (no dpopJkt): unbound, as they were.
  if (v['dpopJkt'] === undefined) return { ...v, dpopJkt: null } as unknown as PendingRequest
  if (v['dpopJkt'] !== null && typeof v['dpopJkt'] !== 'string') return undefined
  return v as unknown as PendingRequest
}
