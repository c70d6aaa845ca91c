// Reading and checking an authorization request (RFC 6749 4.1.1 with PKCE and RFC 9700). A problem with the
// client or the redirect URI is shown on an error page: redirecting to an unchecked URI would make the server an
// open redirector. Every other problem goes back to the (now trusted) redirect URI as an OAuth error.
import type { AuthorizeErrorCode } from './errors.js'
import { isS256Challenge } from './pkce.js'
import { parseScope } from './scope.js'

export const DEFAULT_BRAND = 'nab'
export const DEFAULT_LOB = 'nab'
const MAX_STATE_LENGTH = 1024
const MAX_PARAM_LENGTH = 2048

export interface AuthorizeParams {
  clientId: string | undefined
  redirectUri: string | undefined
  responseType: string | undefined
  scope: string | undefined
  state: string | undefined
  codeChallenge: string | undefined
  codeChallengeMethod: string | undefined
  brand: string | undefined
  lob: string | undefined
  /** RFC 9449 10: the thumbprint of the DPoP key the code is to be bound to. */
  dpopJkt: string | undefined
  /** Parameters sent more than once (RFC 6749, 3.1: they must not be). */
  repeated: string[]
  /** redirect_uri and redirect_url both sent, with different values. */
  conflictingRedirect: boolean
}

type Query = Record<string, unknown>

/** One value per parameter; an empty value counts as absent (RFC 6749, 3.1). */
export function readAuthorizeParams(query: Query): AuthorizeParams {
  const repeated: string[] = []
  const one = (name: string): string | undefined => {
    const value = query[name]
    if (Array.isArray(value)) {
      repeated.push(name)
      return undefined
    }
    return typeof value === 'string' && value !== '' ? value : undefined
  }
  const redirectUri = one('redirect_uri')
  const redirectUrl = one('redirect_url')
  return {
    clientId: one('client_id'),
    redirectUri: redirectUri ?? redirectUrl,
    responseType: one('response_type'),
    scope: one('scope'),
    state: one('state'),
    codeChallenge: one('code_challenge'),
    codeChallengeMethod: one('code_challenge_method'),
    brand: one('brand'),
    lob: one('lob'),
    dpopJkt: one('dpop_jkt'),
    repeated,
    conflictingRedirect: redirectUri !== undefined && redirectUrl !== undefined && redirectUri !== redirectUrl,
  }
}

/** A problem that must be shown on a page, never redirected: the client or the redirect URI is in doubt. */
export function pageProblem(p: AuthorizeParams): string | undefined {
  if (p.repeated.includes('client_id')) return 'The request names more than one application (client_id).'
  if (!p.clientId) return 'The request does not say which application is asking (client_id is missing).'
  if (p.repeated.includes('redirect_uri') || p.repeated.includes('redirect_url') || p.conflictingRedirect) {
    return 'The request gives more than one address to return to (redirect_uri).'
  }
  if (!p.redirectUri) return 'The request does not say where to send you back to (redirect_uri is missing).'
  return undefined
}

export interface AuthorizeError {
  error: AuthorizeErrorCode
  description: string
}

export interface CheckedRequest {
  scopes: string[]
  state: string | undefined
  codeChallenge: string
  brand: string
  lob: string
  dpopJkt: string | undefined
}

/** An RFC 7638 SHA-256 JWK thumbprint, base64url without padding. */
const JKT = /^[A-Za-z0-9_-]{43}$/

/** Checks the rest of a request whose client and redirect URI are known good. */
export function checkAuthorizeRequest(p: AuthorizeParams, allowedScopes: readonly string[]): AuthorizeError | CheckedRequest {
  const invalid = (description: string): AuthorizeError => ({ error: 'invalid_request', description })
  if (p.repeated.length > 0) return invalid(`${p.repeated[0]} must be sent once`)
  if (!p.responseType) return invalid('response_type is required')
  if (p.responseType !== 'code') return { error: 'unsupported_response_type', description: 'response_type must be code' }
  if (!p.codeChallenge) return invalid('code_challenge is required (PKCE with S256)')
  if (p.codeChallengeMethod !== 'S256') return invalid('code_challenge_method must be S256')
  if (!isS256Challenge(p.codeChallenge)) return invalid('code_challenge must be the 43-character base64url SHA-256 of the code_verifier')
  if (p.state !== undefined && p.state.length > MAX_STATE_LENGTH) return invalid(`state must be at most ${MAX_STATE_LENGTH} characters`)
  for (const [name, value] of [['brand', p.brand], ['lob', p.lob]] as const) {
    if (value !== undefined && !/^[\w-]{1,32}$/.test(value)) return invalid(`${name} must be 1 to 32 letters, digits, - or _`)
  }
  if (p.dpopJkt !== undefined && !JKT.test(p.dpopJkt)) return invalid('dpop_jkt must be the 43-character base64url SHA-256 JWK thumbprint (RFC 7638) of the DPoP key')
  if (p.scope !== undefined && p.scope.length > MAX_PARAM_LENGTH) return { error: 'invalid_scope', description: 'scope is too long' }
  const requested = p.scope === undefined ? [] : parseScope(p.scope)
  if (requested === undefined) return { error: 'invalid_scope', description: 'scope must be space-separated scope names' }
  // RFC 6749 3.3: without a scope, the client's registered scopes are the default.
  const scopes = requested.length > 0 ? requested : [...allowedScopes]
  const refused = scopes.filter((s) => !allowedScopes.includes(s))
  if (refused.length > 0) return { error: 'invalid_scope', description: `the client may not ask for ${refused.join(' ')}` }
  return { scopes, state: p.state, codeChallenge: p.codeChallenge, brand: p.brand ?? DEFAULT_BRAND, lob: p.lob ?? DEFAULT_LOB, dpopJkt: p.dpopJkt }
}
