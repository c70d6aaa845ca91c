// The authorize endpoint's steps: check the request, let the account holder sign in, then record their Allow or
// Deny and send the answer back to the client. Between the steps the request waits server-side as a pending
// consent, found by a random value the page's form carries and bound to the browser that started it.
//
// CSRF: the form's hidden csrf_token is that random value (stored hashed), so a form can only be answered by the
// page rendered for it; and the consent is bound to a browser-binding cookie (HttpOnly, SameSite=Lax,
// Path=/oauth2), which a cross-site POST does not carry. A forged submission therefore needs both the victim's
// page and the victim's cookie. The value changes when the account holder signs in.
import { timingSafeEqual } from 'node:crypto'
import { DomainError } from '../platform/errors.js'
import type { Clock } from '../platform/clock.js'
import { randomSecret, sha256Hex } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import type { IdentityService, SignInContext } from '../identity/service.js'
import { checkAuthorizeRequest, pageProblem, readAuthorizeParams } from './authorize-request.js'
import type { ClientService, OAuthClient } from './clients-service.js'
import { formActionSource, redirectAllowed, withParams } from './redirect-uri.js'
import * as repo from './repository.js'
import { SCOPES, formatScope, isScope } from './scope.js'

/** How long the account holder has between opening the page and answering it. */
export const CONSENT_TTL_MS = 10 * 60_000
/** How long an authorization code can be exchanged. */
export const CODE_TTL_MS = 10 * 60_000
/** Used codes are remembered this long past their expiry, so a late replay still revokes what the first use got. */
export const CODE_MEMORY_MS = 24 * 60 * 60_000
const MAX_CREDENTIAL_LENGTH = 128

/** What the sign-in and consent pages show. */
export interface PageView {
  csrfToken: string
  clientName: string
  scopes: { name: string; description: string }[]
  /** Where the answer goes, for the account holder to see: the redirect URI's host (or scheme). */
  returnTo: string
  /** The CSP form-action source the page needs so its form may end in the redirect. */
  formAction: string
}

export type AuthorizeOutcome =
  | { kind: 'error'; status: 400 | 403; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'sign-in'; view: PageView; failed: boolean; username?: string }
  | { kind: 'consent'; view: PageView }

export interface AuthorizeService {
  /** GET /oauth2/v3/authorize: checks the request and opens a pending consent bound to `browserId`. */
  start(query: Record<string, unknown>, browserId: string): Promise<AuthorizeOutcome>
  /** POST /oauth2/v3/authorize: the sign-in form, or the Allow/Deny form. `context.source` is the caller's address. */
  answer(form: Record<string, unknown>, browserId: string | undefined, context?: SignInContext): Promise<AuthorizeOutcome>
}

/** Housekeeping: deletes abandoned consents, and codes long past any possible replay. */
export async function pruneConsentsAndCodes(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  const now = clock.now()
  const consents = await repo.deleteExpiredConsents(db.kysely, now.toISOString())
  const codes = await repo.deleteCodesExpiredBefore(db.kysely, new Date(now.getTime() - CODE_MEMORY_MS).toISOString())
  return consents + codes
}

const EXPIRED: AuthorizeOutcome = {
  kind: 'error',
  status: 403,
  message: 'This page has expired, was already answered, or was opened in another browser. Go back to the application and start again.',
}

function single(form: Record<string, unknown>, name: string): string | undefined {
  const value = form[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

export function createAuthorizeService(deps: {
  db: Pick<Db, 'kysely'>
  clock: Clock
  clients: Pick<ClientService, 'find' | 'get'>
  /** Verifies the page's username and password with identity's hashing, lockout and uniform failure. */
  identity: Pick<IdentityService, 'verify'>
}): AuthorizeService {
  const { db, clock, clients, identity } = deps

  function view(client: OAuthClient, consent: Pick<repo.ConsentRow, 'scope' | 'redirect_uri'>, csrfToken: string): PageView {
    const url = new URL(consent.redirect_uri)
    return {
      csrfToken,
      clientName: client.name,
      scopes: consent.scope
        .split(' ')
        .filter(isScope)
        .map((name) => ({ name, description: SCOPES[name] })),
      returnTo: url.host || url.protocol,
      formAction: formActionSource(consent.redirect_uri),
    }
  }

  return {
    async start(query, browserId) {
      const params = readAuthorizeParams(query)
      const problem = pageProblem(params)
      if (problem) return { kind: 'error', status: 400, message: problem }
      const client = await clients.find(params.clientId!)
      if (!client) return { kind: 'error', status: 400, message: 'The application that sent you here is not registered with us, or its access has been withdrawn.' }
      const redirectUri = params.redirectUri!
      if (!redirectAllowed(client, redirectUri)) {
        return { kind: 'error', status: 400, message: 'The address the application asked us to send you back to is not registered for it.' }
      }
      const checked = checkAuthorizeRequest(params, client.scopes)
      if ('error' in checked) {
        return { kind: 'redirect', location: withParams(redirectUri, { error: checked.error, error_description: checked.description, state: params.state }) }
      }

      const now = clock.now()

      const csrfToken = randomSecret(32)
      const consent = {
        id_hash: sha256Hex(csrfToken),
        browser_hash: sha256Hex(browserId),
        client_id: client.id,
        redirect_uri: redirectUri,
        scope: formatScope(checked.scopes),
        state: checked.state ?? null,
        code_challenge: checked.codeChallenge,
        brand: checked.brand,
        lob: checked.lob,
        customer_id: null,
        expires_at: new Date(now.getTime() + CONSENT_TTL_MS).toISOString(),
        created_at: now.toISOString(),
      }
      await repo.insertConsent(db.kysely, consent)
      return { kind: 'sign-in', view: view(client, consent, csrfToken), failed: false }
    },

    async answer(form, browserId, context) {
      const csrfToken = single(form, 'csrf_token')
      if (!csrfToken || !browserId || csrfToken.length > 64) return EXPIRED
      const consent = await repo.findConsent(db.kysely, sha256Hex(csrfToken))
      if (!consent || !sameHash(consent.browser_hash, sha256Hex(browserId))) return EXPIRED
      if (consent.expires_at <= clock.now().toISOString()) {
        await repo.deleteConsent(db.kysely, consent.id_hash)
        return EXPIRED
      }
      const client = await clients.get(consent.client_id)
      if (!client) return { kind: 'error', status: 400, message: 'The application that sent you here no longer has access.' }

      if (consent.customer_id === null) {
        const username = single(form, 'username')
        const password = single(form, 'password')
        const failed: AuthorizeOutcome = { kind: 'sign-in', view: view(client, consent, csrfToken), failed: true, username: username?.slice(0, MAX_CREDENTIAL_LENGTH) }
        if (!username || !password || username.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) return failed
        let customerId: string
        try {
          customerId = (await identity.verify(consent.brand, consent.lob, { kind: 'usernamePassword', identifier: username, secret: password }, context)).customerId
        } catch (err) {
          // Every sign-in failure (unknown user, wrong password, locked) reads the same on the page.
          if (err instanceof DomainError && err.kind === 'unauthenticated') return failed
          throw err
        }
        const next = randomSecret(32)
        if ((await repo.signInConsent(db.kysely, consent.id_hash, sha256Hex(next), customerId)) === 0) return EXPIRED
        return { kind: 'consent', view: view(client, consent, next) }
      }

      const decision = single(form, 'decision')
      if (decision !== 'allow' && decision !== 'deny') return { kind: 'error', status: 400, message: 'The answer must be Allow or Deny.' }
      const taken = await repo.takeConsent(db.kysely, consent.id_hash)
      if (!taken) return EXPIRED
      const state = taken.state ?? undefined
      if (decision === 'deny') {
        return { kind: 'redirect', location: withParams(taken.redirect_uri, { error: 'access_denied', error_description: 'the account holder denied access', state }) }
      }
      const code = randomSecret(32)
      const now = clock.now()
      await repo.insertCode(db.kysely, {
        code_hash: sha256Hex(code),
        client_id: taken.client_id,
        customer_id: taken.customer_id!,
        redirect_uri: taken.redirect_uri,
        code_challenge: taken.code_challenge,
        scope: taken.scope,
        expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
        used_at: null,
        grant_id: null,
        created_at: now.toISOString(),
      })
      return { kind: 'redirect', location: withParams(taken.redirect_uri, { code, state }) }
    },
  }
}
