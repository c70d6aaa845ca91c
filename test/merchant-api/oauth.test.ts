// The official SDK's OAuth authentication (authenticationType `oauth`) against the running server, with access
// tokens from this server's token endpoint: the merchant's own client by client_credentials, and a partner of the
// account by authorization_code after a merchant user signs in on the consent page and allows it. Every
// ReportDefinitionsApi and ReportSubscriptionsApi operation each time. And who may sign in on whose consent page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CUSTOMER_1, loginBody } from '../support/banking.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { openAuthorize, pkce, sandboxRequest, signIn } from '../support/oauth.js'
import { MERCHANT_CLIENT, MERCHANT_USER, PARTNER_CLIENT, PARTNER_REDIRECT, clientCredentialsToken, oauthConfig, partnerTokens } from '../support/reporting-oauth.js'
import { sdkTour } from '../support/reporting-sdk.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
})
afterAll(() => t.close())

describe('the SDK with OAuth bearer tokens', () => {
  it("the merchant's client_credentials token (testrest-reporting): every operation, for testrest", async () => {
    const tokens = await clientCredentialsToken(t, MERCHANT_CLIENT)
    expect(tokens.scope).toBe('reporting')
    await sdkTour({ config: oauthConfig(t.baseUrl, 'testrest', tokens), acting: 'testrest', reportName: 'oauth_cc' })
  })

  it('the partner token the merchant user testrest allowed (authorization_code): every operation, for testrest', async () => {
    await sdkTour({ config: oauthConfig(t.baseUrl, 'testrest', await partnerTokens(t)), acting: 'testrest', reportName: 'oauth_code' })
  })

  it("a merchant user of the account allows the partner: every operation, for testrest_two through organizationId", async () => {
    const { password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest_acct', username: 'acct-operator' })
    const tokens = await partnerTokens(t, { username: 'acct-operator', password })
    await sdkTour({ config: oauthConfig(t.baseUrl, 'testrest_two', tokens), acting: 'testrest_two', organizationId: 'testrest_two', reportName: 'oauth_code_meta' })
  })

  it("the partner's own client_credentials token acts for the account: every operation, for testrest through organizationId", async () => {
    await sdkTour({ config: oauthConfig(t.baseUrl, 'testrest', await clientCredentialsToken(t, PARTNER_CLIENT)), acting: 'testrest', organizationId: 'testrest', reportName: 'oauth_cc_acct' })
  })
})

describe('consent pages and merchant users', () => {
  const partnerPage = () => {
    const { challenge } = pkce()
    return openAuthorize(t, { response_type: 'code', client_id: PARTNER_CLIENT.clientId, redirect_uri: PARTNER_REDIRECT, scope: 'reporting', code_challenge: challenge, code_challenge_method: 'S256' })
  }

  it("an account holder cannot sign in on an organization's client's page, whatever brand and lob it names", async () => {
    const page = await partnerPage()
    const failed = await signIn(t, page, CUSTOMER_1)
    expect(failed.status).toBe(200)
    expect(failed.text).toContain('That username and password did not work')
  })

  it("a merchant user cannot sign in on a banking client's page, nor log in to banking", async () => {
    const { challenge } = pkce()
    const page = await openAuthorize(t, sandboxRequest(t, challenge, { scope: 'reporting', brand: 'merchant', lob: 'reporting' }))
    expect((await signIn(t, page, MERCHANT_USER)).text).toContain('That username and password did not work')
    for (const realm of [{ brand: 'nab', lob: 'nab' }, { brand: 'merchant', lob: 'reporting' }]) {
      const res = await t.call('POST', '/v2/auth?v=1', { body: loginBody({ ...MERCHANT_USER, ...realm }) })
      expect(res.status, res.text).toBe(401)
    }
  })

  it('the partner page asks a merchant user, about merchant reports', async () => {
    const page = await partnerPage()
    expect(page.text).toContain('is asking for access to your merchant reports. Sign in with your merchant user')
    const consent = await signIn(t, page, MERCHANT_USER)
    expect(consent.text).toContain('<h1>Allow testrest_acct partner (sandbox) to access your merchant reports?</h1>')
  })

  it('lists the merchant users; a revoked one can no longer sign in', async () => {
    const { user, password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'leaver' })
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(await t.app.services.merchantUsers.list()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'sandbox-merchant-user-testrest', organizationId: 'testrest', username: 'testrest', status: 'active' }),
        expect.objectContaining({ id: user.id, username: 'leaver', status: 'active' }),
      ]),
    )
    await partnerTokens(t, { username: 'leaver', password })
    await t.app.services.identity.revokeCredential(user.credentialId)
    const failed = await signIn(t, await partnerPage(), { ...MERCHANT_USER, username: 'leaver', password })
    expect(failed.text).toContain('That username and password did not work')
    await expect(t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'leaver' })).rejects.toMatchObject({ kind: 'conflict' })
    await expect(t.app.services.merchantUsers.create({ organizationId: 'nosuchorg', username: 'x' })).rejects.toMatchObject({ kind: 'invalid' })
  })
})
