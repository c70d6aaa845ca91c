// The authorize endpoint's steps: check the request, let the account holder sign in, then record their Allow or
// Deny and send the answer back to the client. Until the sign-in nothing is written: the request waits in the
// sign-in form as a signed, expiring value (pending-request.ts) bound to the browser that opened it. A successful
// sign-in spends that value and writes the consent row, found by a new random value the consent form carries;
// answering marks the row, so Allow or Deny works once.
//
// CSRF: a form can only be answered with the value rendered into the page for it (the signed request, or the
// consent's random value, stored hashed); and both are bound to a browser-binding cookie (HttpOnly, SameSite=Lax,
// Path=/oauth2), which a cross-site POST does not carry. A forged submission therefore needs both the victim's
// page and the victim's cookie.
import { DomainError } from '../../platform/errors.js'
import type { Clock } from '../../platform/clock.js'
import { randomSecret, sameText, sha256Hex } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { IdentityService, SignInContext } from '../../identity/service.js'
import { MERCHANT_USER_KIND, MERCHANT_USER_REALM, type Claim } from '../../identity/types.js'
import { createClientThrottle, type OAuthLimits } from '../clients/authenticate.js'
import type { ParService, PushedRequest } from '../par/service.js'
import { checkAuthorizeRequest, pageProblem, readAuthorizeParams } from '../authorize-request.js'
import type { ClientService, OAuthClient } from '../clients/service.js'
import { MAX_PENDING_REQUEST_LENGTH, openPendingRequest, pendingRequestKey, sealPendingRequest, type PendingRequest } from '../pending-request.js'
import { formActionSource, redirectAllowed, withParams } from '../redirect-uri.js'
import * as repo from '../repository.js'
import { SCOPES, formatScope, isScope } from '../scope.js'

/** How long the account holder has between opening the page and answering it. */
export const CONSENT_TTL_MS = 10 * 60_000
/** How long an authorization code can be exchanged. */
export const CODE_TTL_MS = 10 * 60_000
/** Used codes are remembered this long past their expiry, so a late replay still revokes what the first use got. */
export const CODE_MEMORY_MS = 24 * 60 * 60_000
const MAX_CREDENTIAL_LENGTH = 128

/** A username and password to show on the sandbox's pages. */
export interface SignInHint {
  username: string
  password: string
}

/** What the sign-in and consent pages show. */
export interface PageView {
  csrfToken: string
  clientName: string
  /** Who signs in: an account holder (banking), or a merchant user for an organization's client (reporting). */
  audience: 'banking' | 'merchant'
  scopes: { name: string; description: string }[]
  /** The client's site the answer goes back to, for the person to see: the redirect URI's host (or scheme). */
  site: string
  /** In sandbox mode, the published test sign-in for this page's audience; never in production. */
  sandboxSignIn?: SignInHint
  /** The CSP form-action source the page needs so its form may end in the redirect. */
  formAction: string
}

export type AuthorizeOutcome =
  | { kind: 'error'; status: 400 | 403; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'sign-in'; view: PageView; failed: boolean; username?: string }
  | { kind: 'consent'; view: PageView }
  /** Too many sign-ins for this client (from this source, or in all): a page at 429 with Retry-After. */
  | { kind: 'throttled'; retryAfter: number; message: string }

/** Who answers the page: the issuer named in every redirect (RFC 9207), and the caller's address. */
export interface AuthorizeContext extends SignInContext {
  issuer: string
}

export interface AuthorizeService {
  /** GET /oauth2/v3/authorize: checks the request and renders it, signed and bound to `browserId`; writes nothing. */
  start(query: Record<string, unknown>, browserId: string, context: AuthorizeContext): Promise<AuthorizeOutcome>
  /** POST /oauth2/v3/authorize: the sign-in form, or the Allow/Deny form. `context.source` is the caller's address. */
  answer(form: Record<string, unknown>, browserId: string | undefined, context: AuthorizeContext): Promise<AuthorizeOutcome>
}

/** Housekeeping: deletes expired consents (answered or abandoned after sign-in), and codes long past any replay. */
export async function pruneConsentsAndCodes(db: Pick<Db, 'kysely'>, clock: Clock): Promise<number> {
  const now = clock.now()
  const consents = await repo.deleteExpiredConsents(db.kysely, now.toISOString())
  const codes = await repo.deleteCodesExpiredBefore(db.kysely, new Date(now.getTime() - CODE_MEMORY_MS).toISOString())
  return consents + codes
}

const UNKNOWN_CLIENT: AuthorizeOutcome = {
  kind: 'error',
  status: 400,
  message: 'The application that sent you here is not registered with us, or its access has been withdrawn.',
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


export function createAuthorizeService(deps: {
  db: Pick<Db, 'kysely'>
  clock: Clock
  clients: Pick<ClientService, 'find' | 'get'>
  /** Verifies the page's username and password with identity's hashing, lockout and uniform failure. */
  identity: Pick<IdentityService, 'verify'>
  /** The server secret (config.secretsKey); the pending requests' signing key is derived from it. */
  secretsKey: string
  /** Pushed authorization requests, redeemed by request_uri. */
  par: Pick<ParService, 'take'>
  limits: Pick<OAuthLimits, 'signInPerMinute' | 'signInPerClientPerMinute'>
  /** Sandbox mode only: the published test sign-ins the pages show, per audience. */
  sandboxSignIn?: Record<PageView['audience'], SignInHint>
}): AuthorizeService {
  const { db, clock, clients, identity, par } = deps
  const pendingKey = pendingRequestKey(deps.secretsKey)
  const signInThrottle = createClientThrottle(deps.limits.signInPerMinute, deps.limits.signInPerClientPerMinute, clock)

  /** The sign-in page for a checked request: the request sealed into the form, bound to this browser. */
  function signInPage(client: OAuthClient, request: PushedRequest, browserId: string, issuer: string): AuthorizeOutcome {
    const pending: PendingRequest = { clientId: client.id, ...request, browserHash: sha256Hex(browserId), expiresAt: clock.now().getTime() + CONSENT_TTL_MS }
    const sealed = sealPendingRequest(pendingKey, pending)
    if (sealed.length > MAX_PENDING_REQUEST_LENGTH) {
      const location = withParams(request.redirectUri, { error: 'invalid_request', error_description: 'the request is too long', state: request.state ?? undefined, iss: issuer })
      return { kind: 'redirect', location }
    }
    return { kind: 'sign-in', view: view(client, pending, sealed), failed: false }
  }

  /** GET with client_id and request_uri (RFC 9126 4): the pushed request, taken once; no redirect can be trusted else. */
  async function startPushed(query: Record<string, unknown>, browserId: string, issuer: string): Promise<AuthorizeOutcome> {
    const clientId = query['client_id']
    if (typeof clientId !== 'string' || clientId === '') return { kind: 'error', status: 400, message: 'The request does not say which application is asking (client_id is missing).' }
    const requestUri = query['request_uri']
    if (typeof requestUri !== 'string') return { kind: 'error', status: 400, message: 'The request names more than one pushed request (request_uri).' }
    const client = await clients.find(clientId)
    if (!client) return UNKNOWN_CLIENT
    const pushed = await par.take(client, requestUri)
    if (!pushed) return { kind: 'error', status: 400, message: 'This sign-in link has expired or was already used. Go back to the application and start again.' }
    return signInPage(client, pushed, browserId, issuer)
  }

  function view(client: OAuthClient, request: { scope: string; redirectUri: string }, csrfToken: string): PageView {
    const url = new URL(request.redirectUri)
    const audience = client.organizationId === null ? 'banking' : 'merchant'
    return {
      csrfToken,
      clientName: client.name,
      audience,
      ...(deps.sandboxSignIn ? { sandboxSignIn: deps.sandboxSignIn[audience] } : {}),
      scopes: request.scope
        .split(' ')
        .filter(isScope)
        .map((name) => ({ name, description: SCOPES[name] })),
      site: url.host || url.protocol,
      formAction: formActionSource(request.redirectUri),
    }
  }

  return {
    async start(query, browserId, context) {
      if (query['request_uri'] !== undefined && query['request_uri'] !== '') return startPushed(query, browserId, context.issuer)
      const params = readAuthorizeParams(query)
      const problem = pageProblem(params)
      if (problem) return { kind: 'error', status: 400, message: problem }
      const client = await clients.find(params.clientId!)
      if (!client) return UNKNOWN_CLIENT
      const redirectUri = params.redirectUri!
      if (!redirectAllowed(client, redirectUri)) {
        return { kind: 'error', status: 400, message: 'The address the application asked us to send you back to is not registered for it.' }
      }
      const iss = context.issuer
      // RFC 9126 5: a client registered to push its requests is refused a plain one, at its own redirect URI.
      if (client.requirePar) {
        const description = 'this client must push its authorization request (RFC 9126) and send request_uri'
        return { kind: 'redirect', location: withParams(redirectUri, { error: 'invalid_request', error_description: description, state: params.state, iss }) }
      }
      const checked = checkAuthorizeRequest(params, client.scopes)
      if ('error' in checked) {
        return { kind: 'redirect', location: withParams(redirectUri, { error: checked.error, error_description: checked.description, state: params.state, iss }) }
      }
      const request = {
        redirectUri,
        scope: formatScope(checked.scopes),
        state: checked.state ?? null,
        codeChallenge: checked.codeChallenge,
        brand: checked.brand,
        lob: checked.lob,
        dpopJkt: checked.dpopJkt ?? null,
      }
      return signInPage(client, request, browserId, iss)
    },

    async answer(form, browserId, context) {
      const csrfToken = single(form, 'csrf_token')
      if (!csrfToken || !browserId) return EXPIRED
      // The sign-in form carries the signed request (it has a dot); the consent form a random value (it has none).
      return csrfToken.includes('.') ? signIn(form, csrfToken, browserId, context) : decide(form, csrfToken, browserId, context.issuer)
    },
  }

  async function signIn(form: Record<string, unknown>, sealed: string, browserId: string, context: AuthorizeContext): Promise<AuthorizeOutcome> {
    const now = clock.now()
    const pending = openPendingRequest(pendingKey, sealed, now.getTime())
    if (!pending || !sameText(pending.browserHash, sha256Hex(browserId))) return EXPIRED
    // Counted per client (the signed request names it, so nobody can spend another client's allowance from a page
    // of their own client), per source and in all, before any database or scrypt work.
    // Cancel on the sign-in form: the client hears access_denied, as for Deny, and the page is spent.
    if (single(form, 'decision') === 'cancel') return cancel(pending, sealed, context.issuer)
    const wait = signInThrottle(pending.clientId, context.source)
    if (wait !== undefined) return { kind: 'throttled', retryAfter: wait, message: `Too many sign-in attempts. Please wait ${wait} seconds and try again.` }
    const requestHash = sha256Hex(sealed)
    if (await repo.requestSpent(db.kysely, requestHash)) return EXPIRED
    const client = await clients.get(pending.clientId)
    if (!client) return { kind: 'error', status: 400, message: 'The application that sent you here no longer has access.' }

    const username = single(form, 'username')
    const password = single(form, 'password')
    const failed: AuthorizeOutcome = { kind: 'sign-in', view: view(client, pending, sealed), failed: true, username: username?.slice(0, MAX_CREDENTIAL_LENGTH) }
    if (!username || !password || username.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) return failed
    // An organization's client (a merchant's partner) is allowed by a merchant user, found in the merchant users'
    // realm whatever brand and lob the request named; every other client by an account holder of its brand and lob.
    const merchant = client.organizationId !== null
    const claim: Claim = merchant ? { kind: MERCHANT_USER_KIND, identifier: username, secret: password } : { kind: 'usernamePassword', identifier: username, secret: password }
    const realm = merchant ? MERCHANT_USER_REALM : pending
    let customerId: string
    try {
      customerId = (await identity.verify(realm.brand, realm.lob, claim, { source: context.source })).customerId
    } catch (err) {
      // Every sign-in failure (unknown user, wrong password, locked) reads the same on the page.
      if (err instanceof DomainError && err.kind === 'unauthenticated') return failed
      throw err
    }
    // The first write of the flow. The unique request hash spends the sign-in page: a second sign-in with it
    // (or a concurrent one) opens no second consent.
    const next = randomSecret(32)
    const opened = await repo.insertConsent(db.kysely, {
      id_hash: sha256Hex(next),
      request_hash: requestHash,
      ...consentOf(pending),
      customer_id: customerId,
      created_at: now.toISOString(),
      answered_at: null,
    })
    return opened ? { kind: 'consent', view: view(client, pending, next) } : EXPIRED
  }

  async function cancel(pending: PendingRequest, sealed: string, iss: string): Promise<AuthorizeOutcome> {
    const now = clock.now()
    const spent = await repo.insertConsent(db.kysely, {
      id_hash: sha256Hex(randomSecret(32)),
      request_hash: sha256Hex(sealed),
      ...consentOf(pending),
      customer_id: null,
      created_at: now.toISOString(),
      answered_at: now.toISOString(),
    })
    if (!spent) return EXPIRED
    const description = 'the person cancelled the sign-in'
    return { kind: 'redirect', location: withParams(pending.redirectUri, { error: 'access_denied', error_description: description, state: pending.state ?? undefined, iss }) }
  }

  async function decide(form: Record<string, unknown>, csrfToken: string, browserId: string, iss: string): Promise<AuthorizeOutcome> {
    if (csrfToken.length > 64) return EXPIRED
    const consent = await repo.findConsent(db.kysely, sha256Hex(csrfToken))
    if (!consent || consent.customer_id === null || consent.answered_at !== null || !sameText(consent.browser_hash, sha256Hex(browserId))) return EXPIRED
    const now = clock.now()
    if (consent.expires_at <= now.toISOString()) return EXPIRED
    const client = await clients.get(consent.client_id)
    if (!client) return { kind: 'error', status: 400, message: 'The application that sent you here no longer has access.' }

    const decision = single(form, 'decision')
    if (decision !== 'allow' && decision !== 'deny') return { kind: 'error', status: 400, message: 'The answer must be Allow or Deny.' }
    const taken = await repo.takeConsent(db.kysely, consent.id_hash, now.toISOString())
    if (!taken) return EXPIRED
    const state = taken.state ?? undefined
    if (decision === 'deny') {
      return { kind: 'redirect', location: withParams(taken.redirect_uri, { error: 'access_denied', error_description: 'the account holder denied access', state, iss }) }
    }
    const code = randomSecret(32)
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
      dpop_jkt: taken.dpop_jkt,
    })
    return { kind: 'redirect', location: withParams(taken.redirect_uri, { code, state, iss }) }
  }
}

/** What a consent row copies from the pending request it answers (its sign-in or its cancel). */
function consentOf(pending: PendingRequest) {
  return {
    browser_hash: pending.browserHash,
    client_id: pending.clientId,
    redirect_uri: pending.redirectUri,
    scope: pending.scope,
    state: pending.state,
    code_challenge: pending.codeChallenge,
    brand: pending.brand,
    lob: pending.lob,
    dpop_jkt: pending.dpopJkt,
    expires_at: new Date(pending.expiresAt).toISOString(),
  }
}
