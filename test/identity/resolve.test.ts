// resolvePrincipal, the one way banking, OAuth and reporting turn a presented token into a principal: a login
// session, an OAuth access token, and the tokens it refuses; and the banking interface using it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_CUSTOMER_1_ID } from '../../src/banking/sandbox-data.js'
import { sha256Hex } from '../../src/platform/crypto.js'
import { expectStatus, login, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { sandboxTokens } from '../support/oauth.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const resolve = (authorization: string | undefined) => t.app.services.identity.resolvePrincipal(authorization)
const refused = { kind: 'unauthenticated' }

describe('resolvePrincipal', () => {
  it('a login session, bare or after Bearer, and remembered for the hot path', async () => {
    const token = await login(t)
    const expected = { source: 'session', customerId: SANDBOX_CUSTOMER_1_ID, restricted: false, tokenHash: sha256Hex(token) }
    expect(await resolve(token)).toEqual(expected)
    expect(await resolve(`Bearer ${token}`)).toEqual(expected)
    expect(t.app.services.identity.recall(token)).toEqual(expected)
  })

  it('an OAuth access token, with its client, application and scopes', async () => {
    const { access_token } = await sandboxTokens(t)
    expect(await resolve(`Bearer ${access_token}`)).toMatchObject({
      source: 'oauth',
      customerId: SANDBOX_CUSTOMER_1_ID,
      clientId: 'sandbox',
      applicationId: 'sandbox',
      scopes: ['accounts'],
      tokenHash: sha256Hex(access_token),
    })
    // Never cached: a revocation holds at once.
    expect(t.app.services.identity.recall(access_token)).toBeUndefined()
  })

  it('refuses a revoked OAuth token and a refresh token, which banking then answers with API-448', async () => {
    const { access_token, refresh_token } = await sandboxTokens(t)
    await expect(resolve(refresh_token)).rejects.toMatchObject(refused)
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 200, 'API-200')
    await t.app.services.identity.revokeAccessToken(sha256Hex(access_token))
    await expect(resolve(access_token)).rejects.toMatchObject(refused)
    expectStatus(await withToken(t, access_token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })

  it('refuses an ended session, at once in this process', async () => {
    const token = await login(t)
    expect(await resolve(token)).toMatchObject({ source: 'session' })
    await t.app.services.identity.endSession(sha256Hex(token))
    await expect(resolve(token)).rejects.toMatchObject(refused)
    expect(t.app.services.identity.recall(token)).toBeUndefined()
    expectStatus(await withToken(t, token)('GET', '/v2/accounts?v=1'), 401, 'API-448')
  })

  it('an unknown string is no principal (the feature decides); a missing one is refused', async () => {
    expect(await resolve('no-such-token')).toBeUndefined()
    await expect(resolve(undefined)).rejects.toMatchObject(refused)
    await expect(resolve('Bearer ')).rejects.toMatchObject(refused)
  })
})
