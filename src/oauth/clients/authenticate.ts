// Client authentication as every client-facing endpoint does it (token, revocation, introspection, pushed
// requests), behind the guessing throttle: a client_id is counted per source address and in all, before its secret
// is checked. The throttles are in-process windows (platform/throttle.ts): N processes allow N times the limits.
import type { Clock } from '../../platform/clock.js'
import { rateLimited } from '../../platform/errors.js'
import { createThrottle } from '../../platform/throttle.js'
import type { ClientService, OAuthClient } from './service.js'
import { clientCredentials, type ClientFields } from '../token-request.js'

export interface OAuthLimits {
  /** Sign-ins on the consent page per minute for one client from one source address. */
  signInPerMinute: number
  /** Sign-ins on the consent page per minute for one client from all sources. */
  signInPerClientPerMinute: number
  /** Calls of the client-authenticated endpoints per minute naming one client_id from one source address. */
  clientCallsPerMinute: number
  /** The same from all sources. */
  clientCallsPerClientPerMinute: number
}

export const DEFAULT_OAUTH_LIMITS: OAuthLimits = { signInPerMinute: 20, signInPerClientPerMinute: 600, clientCallsPerMinute: 120, clientCallsPerClientPerMinute: 3000 }

/** A two-level throttle: per client and source, then per client. Answers the seconds to wait, or undefined. */
export type ClientThrottle = (clientKey: string, source: string | undefined) => number | undefined

export function createClientThrottle(perSource: number, perClient: number, clock: Clock): ClientThrottle {
  const bySource = createThrottle(perSource, 60_000, clock)
  const byClient = createThrottle(perClient, 60_000, clock)
  return (clientKey, source) => {
    // Per source first: a flood from one address spends at most its own allowance of the client's.
    const first = bySource.take(`${clientKey} ${source ?? '-'}`)
    if (!first.allowed) return first.resetSeconds
    const second = byClient.take(clientKey)
    return second.allowed ? undefined : second.resetSeconds
  }
}

export function throttled(seconds: number, what: string) {
  return rateLimited(`too many ${what}; retry after ${seconds} seconds`, { headers: { 'retry-after': String(seconds) } })
}

export interface AuthenticatedClient {
  client: OAuthClient
  /** The client_id as presented (for a banking client, its application's key). */
  clientId: string
}

export type AuthenticateClient = (fields: ClientFields, authorization: string | undefined, source: string | undefined) => Promise<AuthenticatedClient>

export function createClientAuthentication(deps: { clients: Pick<ClientService, 'authenticate'>; clock: Clock; limits: OAuthLimits }): AuthenticateClient {
  const throttle = createClientThrottle(deps.limits.clientCallsPerMinute, deps.limits.clientCallsPerClientPerMinute, deps.clock)
  return async (fields, authorization, source) => {
    const credentials = clientCredentials(fields, authorization)
    // Keyed by the presented client_id, so a flood naming one client never slows another.
    const wait = throttle(credentials.clientId.slice(0, 256), source)
    if (wait !== undefined) throw throttled(wait, 'requests for this client')
    return { client: await deps.clients.authenticate(credentials), clientId: credentials.clientId }
  }
}
