// DPoP-bound tokens (RFC 9449): the token endpoint binds tokens to the proof's key, and the banking interface
// accepts a bound token only as `Authorization: DPoP <token>` with a fresh proof by that key for the request's
// method and URL. Replays, other URLs, other methods, other keys and a bound token sent as a bearer token fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectStatus } from '../support/banking.js'
import { dpopKey, proofFor, thumbprint, type DpopKey } from '../support/dpop.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { authorizeCode, authorizePath, basic, expectTokenError, pkce, REDIRECT, redirected, sandboxRequest, token } from '../support/oauth.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const TOKEN_PATH = '/oauth2/v3/token'
const ACCOUNTS = '/v2/accounts'

/** The sandbox client's code flow, exchanged with a DPoP proof by `key`. */
async function boundTokens(key: DpopKey) {
  const { verifier, challenge } = pkce()
  const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge) })
  const res = await token(
    t,
    { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier },
    { dpop: proofFor(t, key, 'POST', TOKEN_PATH) },
  )
  expect(res.status, res.text).toBe(200)
  return res.json as { access_token: string; refresh_token: string; token_type: string }
}

const accounts = (accessToken: string, proof: string | undefined, scheme = 'DPoP') =>
  t.call('GET', `${ACCOUNTS}?v=1`, { headers: { authorization: `${scheme} ${accessToken}`, dpop: proof } })

describe('binding at the token endpoint', () => {
  it.each(['ES256', 'EdDSA', 'Ed25519'] as const)('a valid %s proof gives DPoP tokens that read GET /v2/accounts with a proof per call', async (alg) => {
    const key = dpopKey(alg)
    const tokens = await boundTokens(key)
    expect(tokens.token_type).toBe('DPoP')
    const res = await accounts(tokens.access_token, proofFor(t, key, 'GET', ACCOUNTS, tokens.access_token))
    expectStatus(res, 200, 'API-200')
    expect(res.json.accountsResponse.accounts.length).toBeGreaterThan(0)
    // The query is not part of htu: a proof naming the URL with its query works too.
    expectStatus(await accounts(tokens.access_token, proofFor(t, key, 'GET', `${ACCOUNTS}?v=1`, tokens.access_token)), 200, 'API-200')
  })

  it('a replayed proof, another URL, another method, another key, no ath, an old iat, or no proof: API-448', async () => {
    const key = dpopKey()
    const { access_token } = await boundTokens(key)
    const proof = proofFor(t, key, 'GET', ACCOUNTS, access_token)
    expectStatus(await accounts(access_token, proof), 200, 'API-200')
    expectStatus(await accounts(access_token, proof), 401, 'API-448') // replayed
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', '/v2/accounts/balance', access_token)), 401, 'API-448')
    expectStatus(await accounts(access_token, proofFor(t, key, 'POST', ACCOUNTS, access_token)), 401, 'API-448')
    expectStatus(await accounts(access_token, proofFor(t, dpopKey(), 'GET', ACCOUNTS, access_token)), 401, 'API-448')
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', ACCOUNTS)), 401, 'API-448')
    const old = Math.floor(t.clock.now().getTime() / 1000) - 120
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', ACCOUNTS, access_token, { iat: old })), 401, 'API-448')
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', ACCOUNTS, access_token, { header: { typ: 'JWT' } })), 401, 'API-448')
    expectStatus(await accounts(access_token, undefined), 401, 'API-448')
    // Still works with a fresh proof: failures spend nothing.
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', ACCOUNTS, access_token)), 200, 'API-200')
  })

  it('a DPoP-bound token sent as a bearer token (bare, Bearer, even with a proof) is refused', async () => {
    const key = dpopKey()
    const { access_token } = await boundTokens(key)
    expectStatus(await t.call('GET', `${ACCOUNTS}?v=1`, { headers: { authorization: access_token } }), 401, 'API-448')
    expectStatus(await accounts(access_token, proofFor(t, key, 'GET', ACCOUNTS, access_token), 'Bearer'), 401, 'API-448')
  })

  it('a bearer token sent with the DPoP scheme is refused', async () => {
    const { verifier, challenge } = pkce()
    const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge) })
    const res = await token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier })
    expect(res.json.token_type).toBe('bearer')
    const key = dpopKey()
    expectStatus(await accounts(res.json.access_token, proofFor(t, key, 'GET', ACCOUNTS, res.json.access_token)), 401, 'API-448')
  })

  it('a refresh of a bound grant needs a proof by the same key and stays bound', async () => {
    const key = dpopKey()
    const tokens = await boundTokens(key)
    const refresh = (proof: string | undefined, refreshToken = tokens.refresh_token) =>
      token(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: refreshToken }, { dpop: proof })
    expectTokenError(await refresh(undefined), 'invalid_dpop_proof')
    expectTokenError(await refresh(proofFor(t, dpopKey(), 'POST', TOKEN_PATH)), 'invalid_dpop_proof', 'the DPoP proof is not signed by the key the refresh token is bound to')
    const ok = await refresh(proofFor(t, key, 'POST', TOKEN_PATH))
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.token_type).toBe('DPoP')
    expectStatus(await accounts(ok.json.access_token, proofFor(t, key, 'GET', ACCOUNTS, ok.json.access_token)), 200, 'API-200')
  })

  it('bad proofs at the token endpoint: invalid_dpop_proof, and the code is not spent', async () => {
    const key = dpopKey()
    const { verifier, challenge } = pkce()
    const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge) })
    const exchange = (proof: string) => token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier }, { dpop: proof })
    expectTokenError(await exchange(proofFor(t, key, 'GET', TOKEN_PATH)), 'invalid_dpop_proof', "the DPoP proof's htm must be POST")
    expectTokenError(await exchange(proofFor(t, key, 'POST', '/oauth2/v3/other')), 'invalid_dpop_proof', /htu/)
    expectTokenError(await exchange('not.a.proof'), 'invalid_dpop_proof')
    const used = proofFor(t, key, 'POST', TOKEN_PATH)
    const first = await exchange(used)
    expect(first.status, first.text).toBe(200)
  })
})

describe('a client registered with --dpop', () => {
  it('must send a proof; its tokens introspect with cnf.jkt', async () => {
    const { client, secret } = await t.app.services.oauth.clients.create({ name: 'Bound', redirectUris: [REDIRECT], scopes: ['reporting'], public: false, requireDpop: true })
    const auth = { authorization: basic(client.publicId!, secret!) }
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, auth), 'invalid_dpop_proof', 'this client needs a DPoP proof (the DPoP header) with every token request')
    const key = dpopKey()
    const ok = await token(t, { grant_type: 'client_credentials' }, { ...auth, dpop: proofFor(t, key, 'POST', TOKEN_PATH) })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.token_type).toBe('DPoP')
    const described = await t.call('POST', '/oauth2/v3/introspect', {
      headers: { ...auth, 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: ok.json.access_token }).toString(),
    })
    expect(described.json).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: thumbprint(key.jwk) } })
  })

  it('seen proofs are pruned once out of the window', async () => {
    const count = async () => Number((await t.db.kysely.selectFrom('replay_guard').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    expect(await count()).toBeGreaterThan(0)
    t.clock.advance(5 * 60_000)
    await t.app.services.housekeeping.runOnce()
    expect(await count()).toBe(0)
  })
})

// RFC 9449 10: a client binds the authorization code to its key before the browser leaves, by a DPoP proof on its
// pushed request or by dpop_jkt (on the push or the plain authorization request); the code is then exchanged only
// with a proof by that key, so a code stolen from the redirect is useless without the private key.
describe('the authorization code bound to a DPoP key (RFC 9449 10)', () => {
  const PAR_PATH = '/oauth2/v3/par'
  const push = (fields: Record<string, string | undefined>, dpop?: string) => {
    const body = new URLSearchParams()
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v)
    return t.call('POST', PAR_PATH, { headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', dpop }, body: body.toString() })
  }
  const parError = (res: { status: number; json: { error?: string; error_description?: string }; text: string }, status: number, error: string, description?: string | RegExp) => {
    expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error })
    if (typeof description === 'string') expect(res.json.error_description).toBe(description)
    else if (description) expect(res.json.error_description).toMatch(description)
  }

  /** A pushed request of the sandbox client, through sign-in and Allow, to its code. */
  async function pushedCode(challenge: string, extra: Record<string, string> = {}, dpop?: string): Promise<string> {
    const res = await push({ ...sandboxRequest(t, challenge), ...extra }, dpop)
    expect(res.status, res.text).toBe(201)
    return (await authorizeCode(t, { params: { client_id: t.sandboxKey, request_uri: res.json.request_uri } })).code
  }

  /** The code is refused without a proof and with another key's (and not spent), then taken with `key`'s: DPoP tokens. */
  async function expectBoundTo(code: string, verifier: string, key: DpopKey) {
    const exchange = (proof: string | undefined) =>
      token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier }, { dpop: proof })
    expectTokenError(await exchange(proofFor(t, dpopKey(), 'POST', TOKEN_PATH)), 'invalid_dpop_proof', 'the DPoP proof is not signed by the key the authorization code is bound to')
    expectTokenError(await exchange(undefined), 'invalid_dpop_proof', 'the authorization code is bound to a DPoP key: send a DPoP proof signed by it')
    const ok = await exchange(proofFor(t, key, 'POST', TOKEN_PATH))
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.token_type).toBe('DPoP')
    expectStatus(await accounts(ok.json.access_token, proofFor(t, key, 'GET', ACCOUNTS, ok.json.access_token)), 200, 'API-200')
  }

  it('by a DPoP proof on the pushed request', async () => {
    const key = dpopKey()
    const { verifier, challenge } = pkce()
    await expectBoundTo(await pushedCode(challenge, {}, proofFor(t, key, 'POST', PAR_PATH)), verifier, key)
  })

  it('by dpop_jkt on the pushed request, and with a matching proof beside it', async () => {
    for (const alg of ['ES256', 'Ed25519'] as const) {
      const key = dpopKey(alg)
      const { verifier, challenge } = pkce()
      await expectBoundTo(await pushedCode(challenge, { dpop_jkt: thumbprint(key.jwk) }), verifier, key)
    }
    const key = dpopKey()
    const { verifier, challenge } = pkce()
    await expectBoundTo(await pushedCode(challenge, { dpop_jkt: thumbprint(key.jwk) }, proofFor(t, key, 'POST', PAR_PATH)), verifier, key)
  })

  it('by dpop_jkt on the plain authorization request', async () => {
    const key = dpopKey('EdDSA')
    const { verifier, challenge } = pkce()
    const { code } = await authorizeCode(t, { params: sandboxRequest(t, challenge, { dpop_jkt: thumbprint(key.jwk) }) })
    await expectBoundTo(code, verifier, key)
  })

  it('a pushed request with a proof of one key and dpop_jkt of another, or a bad proof: invalid_dpop_proof (400)', async () => {
    const { challenge } = pkce()
    const key = dpopKey()
    parError(
      await push({ ...sandboxRequest(t, challenge), dpop_jkt: thumbprint(dpopKey().jwk) }, proofFor(t, key, 'POST', PAR_PATH)),
      400,
      'invalid_dpop_proof',
      "dpop_jkt is not the thumbprint of the DPoP proof's key",
    )
    parError(await push(sandboxRequest(t, challenge), proofFor(t, key, 'POST', TOKEN_PATH)), 400, 'invalid_dpop_proof', /htu/)
    parError(await push(sandboxRequest(t, challenge), proofFor(t, key, 'GET', PAR_PATH)), 400, 'invalid_dpop_proof', "the DPoP proof's htm must be POST")
    parError(await push(sandboxRequest(t, challenge), 'not.a.proof'), 400, 'invalid_dpop_proof')
  })

  it('a malformed dpop_jkt: invalid_request, on the pushed request and at the redirect URI of a plain one', async () => {
    const { challenge } = pkce()
    const description = 'dpop_jkt must be the 43-character base64url SHA-256 JWK thumbprint (RFC 7638) of the DPoP key'
    for (const bad of ['abc', `${thumbprint(dpopKey().jwk)}=`, '+'.repeat(43)]) {
      parError(await push({ ...sandboxRequest(t, challenge), dpop_jkt: bad }), 400, 'invalid_request', description)
      const res = await t.call('GET', authorizePath(sandboxRequest(t, challenge, { dpop_jkt: bad })), { headers: { 'x-svc-key': undefined } })
      expect(redirected(res)).toEqual({ error: 'invalid_request', error_description: description, state: 'state-123' })
    }
  })

  it('a code bound to no key is exchanged as before: bearer tokens without a proof, DPoP ones with any key', async () => {
    for (const [proof, type] of [[undefined, 'bearer'], [proofFor(t, dpopKey(), 'POST', TOKEN_PATH), 'DPoP']] as const) {
      const { verifier, challenge } = pkce()
      const code = await pushedCode(challenge)
      const res = await token(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code, redirect_uri: REDIRECT, code_verifier: verifier }, { dpop: proof })
      expect(res.status, res.text).toBe(200)
      expect(res.json.token_type).toBe(type)
    }
  })
})
