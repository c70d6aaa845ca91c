// The report engine's and the on-demand reports' SDK operations under the authentication types beside HTTP Signature
// (whose own tests, reports.test.ts and the on-demand tests, check every answer against the store): JWT RS256 under
// a .p12, JWT HS256 under a shared secret, and an OAuth bearer token (client_credentials). A one-time report goes
// from request to downloaded file, compared field by field with the window's transactions; the five on-demand
// reports answer each scheme exactly what they answer the same organization under HTTP Signature.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { onDemandTour, type OnDemandAnswers } from '../support/on-demand-sdk.js'
import { ACCT_KEY, TESTREST_KEY, sdkConfig } from '../support/reporting.js'
import { jwtP12Config, jwtSecretConfig, registerSdkCertificates, type SdkCertificates } from '../support/reporting-jwt.js'
import { MERCHANT_CLIENT, clientCredentialsToken, oauthConfig } from '../support/reporting-oauth.js'
import { reportTour } from '../support/reports-sdk.js'

let t: TestApp
let certs: SdkCertificates
const files = mkdtempSync(join(tmpdir(), 'finapi-sdk-auth-downloads-'))
/** What the five on-demand reports answer under HTTP Signature, per organization: the baseline every scheme must match. */
const signed = new Map<string, OnDemandAnswers>()

beforeAll(async () => {
  // The SDK dates its signatures and tokens with real time; the server's clock starts there, and the sandbox data ends today.
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  certs = await registerSdkCertificates(t)
  signed.set('testrest', await onDemandTour(t, sdkConfig(t.baseUrl, 'testrest', TESTREST_KEY), 'testrest'))
  signed.set('testrest_two', await onDemandTour(t, sdkConfig(t.baseUrl, 'testrest_two', ACCT_KEY), 'testrest_two'))
})
afterAll(async () => {
  certs.remove()
  await t.close()
  rmSync(files, { recursive: true, force: true })
})

const SCHEMES: [string, string, () => Promise<object>][] = [
  ['JWT RS256 (.p12), testrest with its own certificate', 'testrest', async () => jwtP12Config(t.baseUrl, 'testrest', certs.merchant)],
  ["JWT RS256 (.p12), testrest_two under its account's certificate", 'testrest_two', async () => jwtP12Config(t.baseUrl, 'testrest_two', certs.account, 'testrest_acct')],
  ['JWT HS256 (shared secret), testrest with its own key', 'testrest', async () => jwtSecretConfig(t.baseUrl, 'testrest', TESTREST_KEY)],
  ["JWT HS256 (shared secret), testrest_two under its account's key", 'testrest_two', async () => jwtSecretConfig(t.baseUrl, 'testrest_two', ACCT_KEY)],
  ["OAuth bearer, the merchant's client_credentials token", 'testrest', async () => oauthConfig(t.baseUrl, 'testrest', await clientCredentialsToken(t, MERCHANT_CLIENT))],
]

describe.each(SCHEMES)('the SDK with %s', (name, acting, config) => {
  it('a one-time report from request to downloaded file (ReportsApi, ReportDownloadsApi)', async () => {
    const index = SCHEMES.findIndex((s) => s[0] === name)
    await reportTour(t, { config: await config(), acting, reportName: `auth scheme ${index}`, files, daysBack: 1 + index })
  })

  it('the five on-demand reports answer as under HTTP Signature', async () => {
    expect(await onDemandTour(t, await config(), acting)).toEqual(signed.get(acting))
  })
})
