// Issue 11: the five-failure lockout holds under a burst of parallel wrong passwords. Each failure is counted by
// one atomic UPDATE ... RETURNING, so none is lost while the ~50 ms scrypt checks overlap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCKOUT_MS } from '../../src/identity/service.js'
import { CUSTOMER_1, expectStatus, loginBody } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const post = (password: string) => t.call('POST', '/v2/auth?v=1', { body: loginBody({ ...CUSTOMER_1, password }) })

describe('lockout under parallel failures', () => {
  it('200 concurrent wrong passwords lock the credential: the right password then answers API-448', { timeout: 120_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => post(`wrong-${i}`)))
    for (const res of answers) expectStatus(res, 401, 'API-448')
    const row = await t.db.kysely.selectFrom('credentials').select(['locked_until']).where('kind', '=', 'usernamePassword').where('lookup_key', '=', CUSTOMER_1.username).executeTakeFirstOrThrow()
    expect(row.locked_until! > t.clock.now().toISOString()).toBe(true)

    const locked = await post(CUSTOMER_1.password)
    expectStatus(locked, 401, 'API-448')
    expect(locked.json).toEqual({ status: { code: 'API-448', message: 'Gateway Authentication Failure' } })

    t.clock.advance(LOCKOUT_MS)
    expectStatus(await post(CUSTOMER_1.password), 200, 'API-200')
  })
})
