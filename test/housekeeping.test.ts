// Housekeeping: expired sessions, OAuth tokens, grants, codes and consents are deleted once they can never be
// used again (after their retention), and nothing still usable is. Driven through the real app on a fake clock;
// the rows are read back from the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SESSION_RETENTION_MS, SESSION_TTL_MS as ACCESS_TOKEN_TTL_MS } from '../src/identity/service.js'
import { CODE_MEMORY_MS, CONSENT_TTL_MS } from '../src/oauth/authorize/service.js'
import { ACCESS_TOKEN_TTL_S, REFRESH_TOKEN_TTL_S, TOKEN_RETENTION_MS } from '../src/oauth/token/service.js'
import { sha256Hex } from '../src/platform/crypto.js'
import { CUSTOMER_2, expectStatus, login, withToken } from './support/banking.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { openAuthorize, pkce, sandboxRequest, sandboxTokens, signIn } from './support/oauth.js'

describe('housekeeping on a fake clock', () => {
  let t: TestApp
  beforeAll(async () => {
    // Lenient sandbox: it shows why expired tokens are kept for a while before they are deleted.
    t = await startTestApp({ env: { PRUNE_INTERVAL_SECONDS: '0' } })
  })
  afterAll(() => t.close())

  const prune = () => t.app.services.housekeeping.runOnce()
  const sessionExists = async (token: string) =>
    (await t.db.kysely.selectFrom('sessions').select('token_hash').where('token_hash', '=', sha256Hex(token)).executeTakeFirst()) !== undefined
  const tokenKinds = async (grantId: string) =>
    (await t.db.kysely.selectFrom('oauth_tokens').select('kind').where('grant_id', '=', grantId).orderBy('kind').execute()).map((r) => r.kind)
  const grantOf = async (token: string) =>
    (await t.db.kysely.selectFrom('oauth_tokens').select('grant_id').where('token_hash', '=', sha256Hex(token)).executeTakeFirstOrThrow()).grant_id
  const grantExists = async (id: string) => (await t.db.kysely.selectFrom('oauth_grants').select('id').where('id', '=', id).executeTakeFirst()) !== undefined

  it('keeps an expired session for SESSION_RETENTION_MS, then deletes it; a live session stays', async () => {
    const old = await login(t, CUSTOMER_2)
    t.clock.advance(ACCESS_TOKEN_TTL_MS + SESSION_RETENTION_MS - 1_000)
    const fresh = await login(t, CUSTOMER_2)

    expect((await prune())['sessions']).toBe(0)
    expect(await sessionExists(old)).toBe(true)
    // Still recognised as customer 2's expired session: refused, not read as the sandbox's any-string customer.
    expectStatus(await withToken(t, old)('GET', '/v2/accounts?v=1'), 401, 'API-448')

    t.clock.advance(2_000)
    expect((await prune())['sessions']).toBeGreaterThanOrEqual(1)
    expect(await sessionExists(old)).toBe(false)
    expect(await sessionExists(fresh)).toBe(true)
    expectStatus(await withToken(t, fresh)('GET', '/v2/accounts?v=1'), 200, 'API-200')
  })

  it('deletes expired OAuth tokens after TOKEN_RETENTION_MS, and the grant once no token is left', async () => {
    const tokens = await sandboxTokens(t)
    const grantId = await grantOf(tokens.access_token)
    expect(await tokenKinds(grantId)).toEqual(['access', 'refresh'])

    t.clock.advance(ACCESS_TOKEN_TTL_S * 1000 + TOKEN_RETENTION_MS + 1_000)
    expect((await prune())['oauth tokens and grants']).toBeGreaterThanOrEqual(1)
    expect(await tokenKinds(grantId)).toEqual(['refresh']) // the refresh token lives on, and so does its grant
    expect(await grantExists(grantId)).toBe(true)

    t.clock.advance(REFRESH_TOKEN_TTL_S * 1000)
    await prune()
    expect(await tokenKinds(grantId)).toEqual([])
    expect(await grantExists(grantId)).toBe(false)
  })

  it('deletes abandoned consents once expired, and used codes after CODE_MEMORY_MS', async () => {
    const consents = () => t.db.kysely.selectFrom('oauth_consents').select('id_hash').execute()
    const codes = () => t.db.kysely.selectFrom('oauth_codes').select('code_hash').execute()
    await prune() // start from what the earlier tests left
    await sandboxTokens(t) // one used code, and its answered consent (kept until it expires)
    const page = await openAuthorize(t, sandboxRequest(t, pkce().challenge))
    expect(page.status).toBe(200) // opening the page writes nothing
    expect((await signIn(t, page)).status).toBe(200) // one consent abandoned after sign-in
    expect(await consents()).toHaveLength(2)
    expect(await codes()).toHaveLength(1)

    t.clock.advance(CONSENT_TTL_MS + 1_000)
    await prune()
    expect(await consents()).toHaveLength(0)
    expect(await codes()).toHaveLength(1) // a replay of it must still be recognised

    t.clock.advance(CODE_MEMORY_MS)
    await prune()
    expect(await codes()).toHaveLength(0)
  })
})

describe('housekeeping on its timer', () => {
  it('runs every PRUNE_INTERVAL_SECONDS in the server, on the clock it was given', async () => {
    const t = await startTestApp({ env: { PRUNE_INTERVAL_SECONDS: '1' } })
    try {
      const token = await login(t)
      const count = async () => (await t.db.kysely.selectFrom('sessions').select('token_hash').where('token_hash', '=', sha256Hex(token)).execute()).length
      expect(await count()).toBe(1)
      t.clock.advance(ACCESS_TOKEN_TTL_MS + SESSION_RETENTION_MS + 1_000)
      expect(await count()).toBe(1) // moving time alone deletes nothing: only the server's timer does
      await t.clock.tick(1_000) // fires the server's own housekeeping timer, awaiting its run
      expect(await count()).toBe(0)
      expect(t.logs.some((l) => l['msg'] === 'deleted expired rows')).toBe(true)
    } finally {
      await t.close()
    }
  })
})
