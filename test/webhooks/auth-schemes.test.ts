// The webhook operations through the official SDK under each reporting authentication type: HTTP Signature (see
// management.test.ts for its every detail), JWT (RS256 under a .p12, HS256 under a shared secret) and OAuth bearer
// tokens (client_credentials); for the merchant itself and, where the scheme allows, for a merchant below an account.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, sdkConfig } from '../support/reporting.js'
import { jwtP12Config, jwtSecretConfig, registerSdkCertificates, type SdkCertificates } from '../support/reporting-jwt.js'
import { MERCHANT_CLIENT, clientCredentialsToken, oauthConfig } from '../support/reporting-oauth.js'
import { startReceiver, type Receiver } from '../support/webhooks.js'
import { webhookTour } from '../support/webhooks-sdk.js'

let t: TestApp
let receiver: Receiver
let certs: SdkCertificates
beforeAll(async () => {
  // The SDK dates its signatures and tokens with real time; the server's clock starts there too.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  receiver = await startReceiver()
  certs = await registerSdkCertificates(t)
})
afterAll(async () => {
  certs.remove()
  await receiver.close()
  await t.close()
})

describe('the webhook API through the SDK', () => {
  it('with HTTP Signature, as testrest_two under its account’s meta key', async () => {
    await webhookTour({ t, config: sdkConfig(t.baseUrl, 'testrest_two', ACCT_KEY), acting: 'testrest_two', receiver })
  })

  it('with JWT RS256 (.p12), as testrest, and as testrest_two under the account’s certificate', async () => {
    await webhookTour({ t, config: jwtP12Config(t.baseUrl, 'testrest', certs.merchant), acting: 'testrest', receiver })
    await webhookTour({ t, config: jwtP12Config(t.baseUrl, 'testrest_two', certs.account, 'testrest_acct'), acting: 'testrest_two', receiver })
  })

  it('with JWT HS256 under a shared secret, as testrest', async () => {
    await webhookTour({ t, config: jwtSecretConfig(t.baseUrl, 'testrest', TESTREST_KEY), acting: 'testrest', receiver })
  })

  it('with an OAuth bearer token (client_credentials), as testrest', async () => {
    await webhookTour({ t, config: oauthConfig(t.baseUrl, 'testrest', await clientCredentialsToken(t, MERCHANT_CLIENT)), acting: 'testrest', receiver })
  })
})
