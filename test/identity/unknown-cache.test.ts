// The any-string path of the lenient sandbox: a string identity found to be no token is remembered for a while, so
// later calls with it cost no database work; a real token never is, and the memory lapses on the clock.
import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOT_A_TOKEN, UNKNOWN_CACHE_MS, createIdentityService, type IdentityService } from '../../src/identity/service.js'
import { CUSTOMER_2, expectStatus, login, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
let queries = 0
let identity: IdentityService
beforeAll(async () => {
  t = await startTestApp()
  // The real database, with every query it is sent counted.
  const counter: KyselyPlugin = { transformQuery: (args) => (queries++, args.node), transformResult: async (args) => args.result }
  identity = createIdentityService({ db: { kysely: t.db.kysely.withPlugin(counter) }, clock: t.clock, secretsKey: t.config.secretsKey })
})
afterAll(() => t.close())

describe('strings that are no token', () => {
  it('are looked up once, then recalled without a query until UNKNOWN_CACHE_MS has passed', async () => {
    expect(identity.recall('just-some-string')).toBeUndefined()
    expect(await identity.resolvePrincipal('just-some-string')).toBeUndefined()
    const after = queries
    expect(after).toBeGreaterThan(0)
    expect(identity.recall('just-some-string')).toBe(NOT_A_TOKEN)
    expect(identity.recall('Bearer just-some-string')).toBe(NOT_A_TOKEN)
    expect(queries).toBe(after)
    t.clock.advance(UNKNOWN_CACHE_MS)
    expect(identity.recall('just-some-string')).toBeUndefined()
  })

  it('never include a real session token', async () => {
    const token = await login(t)
    expect(await identity.resolvePrincipal(token)).toMatchObject({ source: 'session' })
    expect(identity.recall(token)).toMatchObject({ source: 'session' })
  })

  it('read as the first sandbox customer on every call of the lenient sandbox, the first and the recalled alike', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await withToken(t, 'anything-at-all')('GET', '/v2/accounts?v=1')
      expectStatus(res, 200, 'API-200')
      expect(res.json.accountsResponse.accounts.length).toBeGreaterThan(0)
    }
    // Exactly customer 1's own answer; and a real token still acts as its own customer.
    const customer1 = await withToken(t, await login(t))('GET', '/v2/accounts?v=1')
    const lenient = await withToken(t, 'anything-at-all')('GET', '/v2/accounts?v=1')
    expect(lenient.json).toEqual(customer1.json)
    const customer2 = await withToken(t, await login(t, CUSTOMER_2))('GET', '/v2/accounts?v=1')
    expect(customer2.json).not.toEqual(lenient.json)
  })
})
