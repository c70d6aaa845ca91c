// Certificates registered for JWT authentication: what registration refuses, what is stored (the certificate
// alone, public), and that a certificate outside its validity no longer verifies anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { makeCertificate, makeJwt } from '../support/reporting-jwt.js'
import { expectAllowed, expectRefused } from '../support/security/merchant-routes.js'

const START = new Date('2026-03-01T12:00:00Z')
const DAY = 86_400_000

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(START) })
})
afterAll(() => t.close())

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { kind: string; details: { reason: string }[] }) => `${e.kind}: ${e.details[0]?.reason}`,
  )

describe('registering a certificate', () => {
  it('refuses a weak key, a certificate already expired, an unknown organization and what is no certificate', async () => {
    const weak = makeCertificate({ organization: 'testrest', bits: 1024, notAfter: new Date(START.getTime() + DAY) })
    const expired = makeCertificate({ organization: 'testrest', notBefore: new Date(START.getTime() - 10 * DAY), notAfter: new Date(START.getTime() - DAY) })
    try {
      const keys = t.app.services.reportingKeys
      expect(await reason(keys.createCertificate('testrest', Buffer.from(weak.pem)))).toBe('invalid: its key must be RSA of at least 2048 bits (RS256)')
      expect(await reason(keys.createCertificate('testrest', Buffer.from(expired.pem)))).toMatch(/^invalid: expired on 2026-02-28T12:00:00/)
      expect(await reason(keys.createCertificate('nosuchorg', Buffer.from(expired.pem)))).toBe('invalid: no organization nosuchorg')
      expect(await reason(keys.createCertificate('testrest', Buffer.from('hello')))).toMatch(/^invalid: is not an X\.509 certificate in PEM or DER/)
    } finally {
      weak.remove()
      expired.remove()
    }
  })

  it('takes DER as well as PEM, and stores the certificate alone', async () => {
    const cert = makeCertificate({ organization: 'testrest', notBefore: START, notAfter: new Date(START.getTime() + DAY) })
    try {
      const der = Buffer.from(cert.pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64')
      const key = await t.app.services.reportingKeys.createCertificate('testrest', der)
      expect(key).toMatchObject({ kind: 'certificate', organizationId: 'testrest', status: 'active', certificate: { kid: cert.serialNumber, notAfter: new Date(START.getTime() + DAY).toISOString() } })
      const row = await t.db.kysely.selectFrom('reporting_certificates').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow()
      expect(row.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n?$/)
      expect(row.certificate).not.toContain('PRIVATE KEY')
    } finally {
      cert.remove()
    }
  })
})

describe('a registered certificate', () => {
  it('verifies JWTs only within its validity', async () => {
    const cert = makeCertificate({ organization: 'testrest', notBefore: new Date(START.getTime() + DAY), notAfter: new Date(START.getTime() + 3 * DAY) })
    try {
      // Registered before it is valid (an operator preparing a rotation): it signs nothing yet.
      await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(cert.pem))
      const call = () => {
        const path = '/reporting/v3/report-definitions'
        const jwt = makeJwt({ method: 'GET', path, signer: { cert }, issuer: 'testrest', now: t.clock.now() })
        return t.call('GET', path, { headers: { 'x-svc-key': undefined, authorization: `Bearer ${jwt}` } })
      }
      expectRefused(await call())
      t.clock.advance(2 * DAY)
      expectAllowed(await call())
      t.clock.advance(2 * DAY)
      expectRefused(await call())
      const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
      expect(metrics).toMatch(/^reporting_authentication_failures_total\{reason="certificate_expired"\} 2$/m)
    } finally {
      t.clock.advance(-4 * DAY)
      cert.remove()
    }
  })
})
