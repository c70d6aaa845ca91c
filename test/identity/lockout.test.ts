// Issue 11: the five-failure lockout holds under a burst of parallel wrong passwords. Each failure is counted by
// one atomic statement (an UPDATE ... RETURNING of the credential in production; an upsert-increment of the
// credential and source address in the sandbox), so none is lost while the ~50 ms scrypt checks overlap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importData } from '../../src/banking/accounts/import.js'
import { sandboxDataset } from '../../src/banking/sandbox-data.js'
import { createIdentityImport } from '../../src/identity/import.js'
import { LOCKOUT_MS } from '../../src/identity/service.js'
import { CUSTOMER_1, expectStatus, loginBody } from '../support/banking.js'
import { call, startTestApp, type TestApp } from '../support/harness.js'

describe.each([
  ['sandbox', 'the credential for that source address'],
  ['production', 'the credential for everyone'],
] as const)('lockout under parallel failures (%s mode)', (mode, what) => {
  let t: TestApp
  let key: string
  beforeAll(async () => {
    if (mode === 'sandbox') {
      t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
      key = t.sandboxKey
    } else {
      t = await startTestApp({ env: { MODE: 'production', SECRETS_KEY: 'lockout-test-secrets-key-0123456789abcdef', LOG_LEVEL: 'warn' } })
      await importData({ db: t.db, clock: t.clock, identity: createIdentityImport(t.config.secretsKey) }, sandboxDataset())
      key = (await t.app.services.applications.create('lockout test')).key
    }
  })
  afterAll(() => t.close())

  const post = (password: string, localAddress?: string) => call(t.baseUrl, key, 'POST', '/v2/auth?v=1', { body: loginBody({ ...CUSTOMER_1, password }), localAddress })

  it(`200 concurrent wrong passwords lock ${what}: the right password then answers API-448`, { timeout: 120_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => post(`wrong-${i}`)))
    for (const res of answers) expectStatus(res, 401, 'API-448')
    const lockedUntil =
      mode === 'sandbox'
        ? (await t.db.kysely.selectFrom('source_sign_in_failures').select('locked_until').where('source', '=', '127.0.0.1').executeTakeFirstOrThrow()).locked_until
        : (await t.db.kysely.selectFrom('credentials').select(['locked_until']).where('kind', '=', 'usernamePassword').where('lookup_key', '=', CUSTOMER_1.username).executeTakeFirstOrThrow()).locked_until
    expect(lockedUntil! > t.clock.now().toISOString()).toBe(true)

    const locked = await post(CUSTOMER_1.password)
    expectStatus(locked, 401, 'API-448')
    expect(locked.json).toEqual({ status: { code: 'API-448', message: 'Gateway Authentication Failure' } })
    // Another source address: served in the sandbox, locked out in production.
    expectStatus(await post(CUSTOMER_1.password, '127.0.0.2'), mode === 'sandbox' ? 200 : 401, mode === 'sandbox' ? 'API-200' : 'API-448')

    t.clock.advance(LOCKOUT_MS)
    expectStatus(await post(CUSTOMER_1.password), 200, 'API-200')
  })
})
