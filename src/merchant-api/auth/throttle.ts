// The merchant API family's throttle: every route behind its gateway (/reporting/v3, /sandbox/v1, the webhook
// management, key, event, delivery-log and replay routes) allows `perMinute` calls a minute per credential (a
// reporting key, a JWT certificate's kid, an OAuth client acting for one organization), and in the sandbox per
// credential *and source address*, as /v2 counts its key (the sandbox keys are published: one sender's flood must
// deny only itself). MERCHANT_API_RATE_LIMIT_PER_MINUTE sets it.
//
// Two steps, so that refusing costs next to nothing and nobody can spend another's allowance:
// - `over`, before anything is verified or read from the database, with the credential the request names (the
//   Signature's keyid, the JWT's kid, an OAuth token already seen): a credential whose allowance is spent is refused
//   here, for the price of a map lookup, before the HMAC, the RSA check and the key's row;
// - `take`, once the credential is verified: only a call that would be admitted is counted. A request merely naming
//   a key (garbage under a victim's key id) is never counted, so it cannot exhaust the victim's allowance; it pays for
//   its own key lookup and signature check and is refused 401.
// Counted per process (platform/throttle.ts): N processes allow up to N times the limit.
import type { Clock } from '../../platform/clock.js'
import { createThrottle } from '../../platform/throttle.js'

export interface MerchantApiLimits {
  /** Calls a minute per credential (in the sandbox per credential and source address). */
  perMinute: number
  /** Sandbox: count per credential and source address. */
  perSource: boolean
}

export interface CallerThrottle {
  /** Before verification: the seconds to wait when the credential (from this source) has no allowance left; counts nothing. */
  over(credential: string, source: string | undefined): number | undefined
  /** After verification: counts the call; the seconds to wait when it is beyond the allowance. */
  take(credential: string, source: string | undefined): number | undefined
}

export function createCallerThrottle(limits: MerchantApiLimits, clock: Clock): CallerThrottle {
  const throttle = createThrottle(limits.perMinute, 60_000, clock)
  const keyOf = (credential: string, source: string | undefined) => (limits.perSource && source !== undefined ? `${credential} ${source}` : credential)
  return {
    over(credential, source) {
      const decision = throttle.peek(keyOf(credential, source))
      return decision.allowed ? undefined : decision.resetSeconds
    },
    take(credential, source) {
      const decision = throttle.take(keyOf(credential, source))
      return decision.allowed ? undefined : decision.resetSeconds
    },
  }
}

/** Remembers which credential an OAuth token was (by the token's hash), so its next calls are checked before the token is looked up. Bounded. */
export class TokenCredentials {
  readonly #known = new Map<string, string>()
  constructor(private readonly max = 10_000) {}

  get(tokenHash: string): string | undefined {
    return this.#known.get(tokenHash)
  }

  set(tokenHash: string, credential: string): void {
    // Dropping all at the bound keeps this a few map operations; a forgotten token is only looked up once more.
    if (this.#known.size >= this.max && !this.#known.has(tokenHash)) this.#known.clear()
    this.#known.set(tokenHash, credential)
  }
}
