// The console's API keys page through HTTP: a shared-secret key made there signs a reporting call at once, its
// secret shown once (on the POST's answer, never in the list), and is refused once revoked; a JWT certificate is
// registered from its PEM and a malformed one refused with one line; another merchant's key cannot be revoked
// (404, as for a key nobody has) and keeps working.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ConsoleBrowser } from '../support/console.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { OTHER_KEY, signedCall } from '../support/reporting.js'
import { makeCertificate } from '../support/reporting-jwt.js'

let t: TestApp
let b: ConsoleBrowser
beforeAll(async () => {
  t = await startTestApp()
  b = new ConsoleBrowser(t)
  await b.signIn()
})
afterAll(() => t.close())

const DEFINITIONS = '/reporting/v3/report-definitions'
const signed = (key: { id: string; secret: string; org: string }) => signedCall(t, { method: 'GET', path: DEFINITIONS, key })

it('creates a key whose secret is shown once and signs at once, then refuses it once revoked', async () => {
  const made = await b.submit('/console/keys', '/console/keys', {})
  expect(made.status).toBe(200)
  expect(made.text).toContain('it is not shown again')
  const id = /id="key-id">([^<]+)</.exec(made.text)![1]!
  const secret = /id="key-secret">([^<]+)</.exec(made.text)![1]!
  const key = { id, secret, org: 'testrest' }
  expect((await signed(key)).status).toBe(200)

  const list = await b.get('/console/keys')
  expect(list.text).toContain(id)
  expect(list.text).not.toContain(secret)
  expect(list.text).toMatch(new RegExp(`${id}</code></td><td>Shared secret</td><td>[^<]+</td><td>Active`))

  expect((await b.submit('/console/keys', `/console/keys/${id}/revoke`, {})).status).toBe(303)
  expect((await signed(key)).status).toBe(401)
  expect((await b.get('/console/keys')).text).toMatch(new RegExp(`${id}</code></td><td>Shared secret</td><td>[^<]+</td><td>Revoked`))
  // Revoked already: there is nothing left to revoke.
  expect((await b.submit('/console/keys', `/console/keys/${id}/revoke`, {})).status).toBe(404)
})

it("answers another merchant's key as one nobody has (404), and leaves it working", async () => {
  for (const id of [OTHER_KEY.id, '00000000-0000-4000-8000-000000000000', 'not-a-key']) {
    const res = await b.submit('/console/keys', `/console/keys/${id}/revoke`, {})
    expect(res.status, id).toBe(404)
    expect(res.text).toContain('not yours to see')
  }
  expect((await signed(OTHER_KEY)).status).toBe(200)
  expect((await b.get('/console/keys')).text).not.toContain(OTHER_KEY.id)
})

it('registers a JWT certificate from its PEM, and refuses a malformed one with one line', async () => {
  const cert = makeCertificate({ organization: 'testrest' })
  try {
    const ok = await b.submit('/console/keys', '/console/keys/certificates', { certificate: cert.pem })
    expect(ok.status, ok.text.slice(0, 2000)).toBe(200)
    expect(ok.text).toContain(`kid ${cert.serialNumber}`)
    const list = await t.app.services.reportingKeys.list('testrest')
    expect(list.find((k) => k.kind === 'certificate')).toMatchObject({ organizationId: 'testrest', status: 'active', certificate: { kid: cert.serialNumber } })

    const again = await b.submit('/console/keys', '/console/keys/certificates', { certificate: cert.pem })
    expect(again.status).toBe(400)
    expect(again.text).toContain('already registered')

    const bad = await b.submit('/console/keys', '/console/keys/certificates', { certificate: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----' })
    expect(bad.status).toBe(400)
    const alert = /<p class="error" role="alert" id="certificate-error">([^<]+)<\/p>/.exec(bad.text)
    expect(alert?.[1]).toMatch(/^The certificate was not registered: is not an X.509 certificate in PEM or DER/)
    expect(bad.text).toContain('not base64')
    const empty = await b.submit('/console/keys', '/console/keys/certificates', { certificate: '  ' })
    expect(empty.status).toBe(400)
    expect(empty.text).toContain('paste it in PEM')
  } finally {
    cert.remove()
  }
})
