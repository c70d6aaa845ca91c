// Issue 11 (6b): in the lenient sandbox any Authorization string creates soft credentials for customer 1, so they
// are bounded per customer: creating one beyond MAX_SOFT_CREDENTIALS revokes the oldest, also under a burst.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_SOFT_CREDENTIALS, SESSION_RETENTION_MS, SESSION_TTL_MS } from '../../src/identity/service.js'
import { expectStatus } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp() // the lenient sandbox: any Authorization string reads as customer 1
})
afterAll(() => t.close())

const create = async (authorization = 'any string at all') => {
  const res = await t.call('POST', '/v2/token?v=1', { headers: { authorization }, body: { tokenRequest: { type: 'softcredential' } } })
  expectStatus(res, 200, 'API-200')
  return res.json.tokenResponse.token as string
}
const signInWith = (token: string) =>
  t.call('POST', '/v2/auth?v=1', { body: { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'token', token: { token } } } } })
const live = async () =>
  (await t.app.services.identity.listCredentials('sandbox-customer-1')).filter((c) => c.kind === 'token' && c.status === 'active').length

describe('soft credentials per customer', () => {
  it(`keeps at most ${MAX_SOFT_CREDENTIALS} live: one more revokes the oldest and ends its sessions`, async () => {
    const first = await create()
    const session = (await signInWith(first)).json.loginResponse.tokens[0].value as string
    expectStatus(await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: session } }), 200, 'API-200')
    const rest: string[] = []
    for (let i = 1; i < MAX_SOFT_CREDENTIALS + 5; i++) {
      t.clock.advance(1) // a distinct creation time each, as in real use
      rest.push(await create())
    }
    expect(await live()).toBe(MAX_SOFT_CREDENTIALS)
    expectStatus(await signInWith(first), 401, 'API-448')
    // Its session ended with it, and is refused rather than read as customer 1.
    expectStatus(await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: session } }), 401, 'API-448')
    for (const token of rest.slice(0, 4)) expectStatus(await signInWith(token), 401, 'API-448')
    for (const token of rest.slice(4)) expectStatus(await signInWith(token), 200, 'API-200')
  })

  it('a burst of 60 parallel creations leaves at most the bound live, and the newest works', async () => {
    await Promise.all(Array.from({ length: 60 }, () => create()))
    expect(await live()).toBeLessThanOrEqual(MAX_SOFT_CREDENTIALS)
    t.clock.advance(1)
    const newest = await create()
    expect(await live()).toBeLessThanOrEqual(MAX_SOFT_CREDENTIALS)
    expectStatus(await signInWith(newest), 200, 'API-200')
  })

  it('housekeeping deletes revoked soft credentials once their sessions are gone', async () => {
    const count = async () => Number((await t.db.kysely.selectFrom('credentials').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', 'token').executeTakeFirstOrThrow()).n)
    const before = await count()
    expect(before).toBeGreaterThan(MAX_SOFT_CREDENTIALS)
    await t.app.services.housekeeping.runOnce()
    expect(await count()).toBe(before) // revoked just now: their sessions may still be remembered
    t.clock.advance(SESSION_TTL_MS + SESSION_RETENTION_MS + 1_000)
    expect((await t.app.services.housekeeping.runOnce())['revoked soft credentials']).toBe(before - (await count()))
    expect(await count()).toBe(await live())
  })
})
