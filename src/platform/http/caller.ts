// Who made a call, as far as its gateway learnt: the scheme it authenticated with, the id of the credential (never
// the credential) and the organization it acts for. Each family's gateway sets it once the caller is known; the
// request log (src/request-log/) reads it when the request ends. A call refused before the caller is known keeps the
// scheme its headers named and no ids. Declared here so that neither the gateways nor the log import each other.
import type { FastifyRequest } from 'fastify'

export const AUTH_SCHEMES = [
  /** Merchant API: HTTP Signature, the SDK's JWT, an OAuth bearer token. */
  'http_signature',
  'jwt',
  'oauth',
  /** Banking: an application key with a customer's token, or the key alone (signing in). */
  'banking_token',
  'banking_key',
  /** OAuth's token endpoint: a client authenticated by HTTP Basic, or by its client_id (and secret) in the form. */
  'client_basic',
  'client_post',
  'none',
] as const

export type AuthScheme = (typeof AUTH_SCHEMES)[number]

export interface Caller {
  scheme: AuthScheme
  /** The reporting key, JWT certificate, OAuth client or banking application's id: never a secret. */
  keyId: string | null
  /** The organization the call acts for, when known. */
  organizationId: string | null
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
}

/** Sets the request's caller (each gateway calls this once it knows; a later call refines it). */
export function setCaller(request: FastifyRequest, caller: Caller): void {
  request.caller = caller
}
