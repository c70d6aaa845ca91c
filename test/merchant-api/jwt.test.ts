// The official SDK's JWT authentication (authenticationType `jwt`) against the running server: RS256 under a .p12
// whose certificate (made here, with a serialNumber subject attribute) is registered for the organization, and HS256
// under a reporting key's shared secret (jwtKeyType SHARED_SECRET, which SDK 0.0.83 supports); each for testrest
// with its own credential and for testrest_two with testrest_acct's as a meta key; every ReportDefinitionsApi and
// ReportSubscriptionsApi operation each time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, cybersource, sdkCall } from '../support/reporting.js'
import { jwtP12Config, jwtSecretConfig, makeCertificate, registerSdkCertificates, type SdkCertificates } from '../support/reporting-jwt.js'
import { sdkTour } from '../support/reporting-sdk.js'

let t: TestApp
let certs: SdkCertificates
beforeAll(async () => {
  // The SDK dates its tokens with real time; the server's clock starts there too.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  certs = await registerSdkCertificates(t)
})
afterAll(async () => {
  certs.remove()
  await t.close()
})

describe('the SDK with JWT', () => {
  it('RS256 (.p12) as testrest with its own certificate: every operation', async () => {
    await sdkTour({ config: jwtP12Config(t.baseUrl, 'testrest', certs.merchant), acting: 'testrest', reportName: 'jwt_rs_own' })
  })

  it("RS256 (.p12) as testrest_two with testrest_acct's certificate as a meta key: every operation", async () => {
    await sdkTour({ config: jwtP12Config(t.baseUrl, 'testrest_two', certs.account, 'testrest_acct'), acting: 'testrest_two', reportName: 'jwt_rs_meta' })
  })

  it("RS256 as testrest_acct acting for testrest through organizationId: every operation", async () => {
    await sdkTour({ config: jwtP12Config(t.baseUrl, 'testrest_acct', certs.account), acting: 'testrest', organizationId: 'testrest', reportName: 'jwt_rs_org' })
  })

  it('HS256 (shared secret) as testrest with its own key: every operation', async () => {
    await sdkTour({ config: jwtSecretConfig(t.baseUrl, 'testrest', TESTREST_KEY), acting: 'testrest', reportName: 'jwt_hs_own' })
  })

  it("HS256 (shared secret) as testrest_two with testrest_acct's key as a meta key: every operation", async () => {
    await sdkTour({ config: jwtSecretConfig(t.baseUrl, 'testrest_two', ACCT_KEY), acting: 'testrest_two', reportName: 'jwt_hs_meta' })
  })

  it("is refused with a certificate registered for another organization, and with the merchant's certificate revoked", async () => {
    const other = makeCertificate({ organization: 'testrest' })
    try {
      const key = await t.app.services.reportingKeys.createCertificate('othermerchant', Buffer.from(other.pem))
      // iss (testrest) is not the certificate's organization (othermerchant).
      const api = () => new cybersource.ReportDefinitionsApi(jwtP12Config(t.baseUrl, 'testrest', other), new cybersource.ApiClient())
      const refused = await sdkCall((cb) => api().getResourceV2Info({}, cb))
      expect(refused.status).toBe(401)
      expect(JSON.parse(refused.error!.response!.text!)).toEqual({ response: { rmsg: 'Authentication Failed' } })
      await t.app.services.reportingKeys.revoke(key.id)
    } finally {
      other.remove()
    }
    const revocable = makeCertificate({ organization: 'testrest' })
    try {
      const key = await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(revocable.pem))
      const api = () => new cybersource.ReportDefinitionsApi(jwtP12Config(t.baseUrl, 'testrest', revocable), new cybersource.ApiClient())
      expect((await sdkCall((cb) => api().getResourceV2Info({}, cb))).status).toBe(200)
      await t.app.services.reportingKeys.revoke(key.id)
      expect((await sdkCall((cb) => api().getResourceV2Info({}, cb))).status).toBe(401)
    } finally {
      revocable.remove()
    }
  })

  it('counts each refusal by reason on /metrics', async () => {
    const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
    expect(metrics).toContain('# TYPE reporting_authentication_failures_total counter')
    expect(metrics).toMatch(/^reporting_authentication_failures_total\{reason="jwt_issuer"\} 1$/m)
    expect(metrics).toMatch(/^reporting_authentication_failures_total\{reason="unknown_key"\} 1$/m)
  })
})
