// The reporting security suite, JWT part: every route behind the reporting gateway against every way a JWT (the SDK's `jwt`
// authenticationType, made here as the SDK makes it) must not be allowed: replayed, expired or too old, for another
// method, path or body, signed by an unregistered certificate or a revoked key, for a merchant outside the key's tree,
// and another tenant's organizationId. Every refusal is the same 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY } from '../support/reporting.js'
import { makeCertificate, makeJwt, type JwtOptions, type TestCertificate } from '../support/reporting-jwt.js'
import { ROUTES, bodyOf, expectAllowed, expectRefused, pathOf, prepareSecurityApp, probe, withQuery, type Route } from '../support/reporting-routes.js'

const START = new Date('2026-02-01T09:00:00Z')
const validity = { notBefore: new Date(START.getTime() - 86_400_000), notAfter: new Date(START.getTime() + 365 * 86_400_000) }
const MINUTE = 60_000

let t: TestApp
let merchantCert: TestCertificate
let accountCert: TestCertificate
let strangerCert: TestCertificate
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(START), reportingRoutes: [probe] })
  await prepareSecurityApp(t)
  merchantCert = makeCertificate({ organization: 'testrest', ...validity })
  accountCert = makeCertificate({ organization: 'testrest_acct', ...validity })
  // Never registered.
  strangerCert = makeCertificate({ organization: 'testrest', ...validity })
  await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(merchantCert.pem))
  await t.app.services.reportingKeys.createCertificate('testrest_acct', Buffer.from(accountCert.pem))
})
afterAll(async () => {
  for (const cert of [merchantCert, accountCert, strangerCert]) cert.remove()
  await t.close()
})

type Overrides = Partial<JwtOptions> & { sendPath?: string; sendBody?: string; headers?: Record<string, string> }

/**
 * Sends the route with a JWT made for it (testrest's certificate unless told; the path of the merchant the token
 * names), the request changed as told.
 */
function send(route: Route, o: Overrides = {}) {
  const path = o.path ?? pathOf(route, o.merchantId)
  const body = o.body ?? bodyOf(route)
  const jwt = makeJwt({ method: route.method, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now(), ...o, path, body })
  return sendToken(route, jwt, { ...o, sendPath: o.sendPath ?? path, sendBody: o.sendBody ?? body })
}

/** Sends a JWT made elsewhere: the route's own path and body for testrest unless told (a body made anew differs). */
function sendToken(route: Route, jwt: string, o: Overrides = {}) {
  const headers = { 'x-svc-key': undefined, authorization: `Bearer ${jwt}`, 'content-type': 'application/json', ...o.headers }
  return t.call(route.method, o.sendPath ?? pathOf(route), { headers, body: o.sendBody ?? bodyOf(route) })
}

const at = (offsetMs: number) => new Date(t.clock.now().getTime() + offsetMs)

describe.each(ROUTES)('reporting JWT security: $name', (route) => {
  it('is allowed with RS256 under a registered certificate and with HS256 under a reporting key', async () => {
    expectAllowed(await send(route))
    expectAllowed(await send(route, { signer: { key: TESTREST_KEY } }))
  })

  it(route.method === 'GET' ? 'refuses a JWT shown a third time (the SDK sends a download twice)' : 'refuses a replayed JWT', async () => {
    const body = bodyOf(route)
    const jwt = makeJwt({ method: route.method, path: pathOf(route), body, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
    expectAllowed(await sendToken(route, jwt, { sendBody: body }))
    if (route.method === 'GET') expectAllowed(await sendToken(route, jwt, { sendBody: body }))
    expectRefused(await sendToken(route, jwt, { sendBody: body }))
  })

  it('refuses an expired JWT and one issued too long ago, allows one within the five minutes of skew', async () => {
    expectRefused(await send(route, { now: at(-8 * MINUTE) }))
    expectRefused(await send(route, { claims: { iat: Math.floor(at(-6 * MINUTE).getTime() / 1000), exp: Math.floor(at(10 * MINUTE).getTime() / 1000) } }))
    expectRefused(await send(route, { now: at(6 * MINUTE) }))
    expectAllowed(await send(route, { now: at(-4 * MINUTE) }))
    expectAllowed(await send(route, { now: at(4 * MINUTE) }))
  })

  it('refuses a JWT for another method or another path', async () => {
    expectRefused(await send(route, { claims: { 'request-method': route.method === 'GET' ? 'delete' : 'get' } }))
    expectRefused(await send(route, { claims: { 'request-method': route.method } }))
    expectRefused(await send(route, { sendPath: withQuery(route, 'organizationId=testrest') }))
    expectRefused(await send(route, { claims: { 'request-resource-path': '/reporting/v3/report-definitions/PayerAuthDetailClass' } }))
  })

  it('refuses a JWT whose digest is of another body, or without one where there is a body', async () => {
    const other = Buffer.from('{"name":"someone else"}')
    const digest = (await import('node:crypto')).createHash('sha256').update(other).digest('base64')
    expectRefused(await send(route, { claims: { digest, 'digest-algorithm': 'SHA-256' } }))
    const body = bodyOf(route)
    if (body !== undefined) {
      expectRefused(await send(route, { body, sendBody: body.replace('}', ' }') }))
      expectRefused(await send(route, { claims: { digest: undefined, 'digest-algorithm': undefined } }))
      expectRefused(await send(route, { claims: { 'digest-algorithm': 'SHA-1' } }))
    }
  })

  it('refuses a JWT signed by an unregistered certificate, or by the right kid with another key', async () => {
    expectRefused(await send(route, { signer: { cert: strangerCert } }))
    expectRefused(await send(route, { signer: { cert: strangerCert }, header: { kid: merchantCert.serialNumber } }))
    expectRefused(await send(route, { signer: { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } } }))
  })

  it("refuses a revoked key's JWT: a certificate and a shared secret", async () => {
    const cert = makeCertificate({ organization: 'testrest', ...validity })
    try {
      const registered = await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(cert.pem))
      expectAllowed(await send(route, { signer: { cert } }))
      await t.app.services.reportingKeys.revoke(registered.id)
      expectRefused(await send(route, { signer: { cert } }))
    } finally {
      cert.remove()
    }
    const { key, secret } = await t.app.services.reportingKeys.create('testrest')
    expectAllowed(await send(route, { signer: { key: { id: key.id, secret } } }))
    await t.app.services.reportingKeys.revoke(key.id)
    expectRefused(await send(route, { signer: { key: { id: key.id, secret } } }))
  })

  it('refuses an algorithm other than RS256 and HS256, and the certificate used as an HMAC secret', async () => {
    expectRefused(await send(route, { header: { alg: 'none' } }))
    expectRefused(await send(route, { header: { alg: 'RS512' } }))
    const certAsSecret = { id: merchantCert.serialNumber, secret: Buffer.from(merchantCert.pem).toString('base64') }
    expectRefused(await send(route, { signer: { key: certAsSecret } }))
  })

  it("refuses a merchant outside the key's tree, an issuer that is not the key's, and a header that contradicts the token", async () => {
    expectRefused(await send(route, { merchantId: 'testrest_two' }))
    expectRefused(await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', merchantId: 'othermerchant' }))
    expectRefused(await send(route, { issuer: 'testrest_acct' }))
    expectRefused(await send(route, { headers: { 'v-c-merchant-id': 'testrest_two' } }))
    expectRefused(await send(route, { claims: { 'request-host': undefined } }))
  })

  it('allows the meta key: the account signs for a merchant below it (RS256 and HS256)', async () => {
    expectAllowed(await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', merchantId: 'testrest_two' }))
    expectAllowed(await send(route, { signer: { key: ACCT_KEY }, issuer: 'testrest_acct', merchantId: 'testrest_two' }))
  })

  it("refuses another tenant's organizationId exactly as an unknown one", async () => {
    const answers = []
    for (const org of ['othermerchant', 'nosuchorg', 'testrest_two', 'testrest_acct']) {
      const path = withQuery(route, `organizationId=${org}`)
      answers.push(await send(route, { path, sendPath: path }))
    }
    for (const res of answers) {
      expect(res.status).toBe(404)
      expect({ ...res.json, submitTimeUtc: undefined }).toEqual({ ...answers[1]!.json, submitTimeUtc: undefined })
    }
  })
})

describe('the JWT scheme', () => {
  it('acts for the token merchant, or the organizationId below it', async () => {
    const route = ROUTES[2]!
    expect((await send(route)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'jwt' })
    const path = withQuery(route, 'organizationId=testrest_two')
    const below = await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', path, sendPath: path })
    expect(below.json).toEqual({ organizationId: 'testrest_two', authenticatedId: 'testrest_acct', scheme: 'jwt' })
  })

  it('refuses a signature header beside the JWT, and Authorization schemes other than Bearer', async () => {
    const route = ROUTES[0]!
    expectRefused(await send(route, { headers: { signature: 'keyid="x", algorithm="HmacSHA256", headers="host", signature="x"' } }))
    const jwt = makeJwt({ method: 'GET', path: pathOf(route), signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
    for (const authorization of [jwt, `Basic ${jwt}`, `DPoP ${jwt}`, `Bearer ${jwt} extra`]) {
      expectRefused(await t.call('GET', pathOf(route), { headers: { 'x-svc-key': undefined, authorization } }))
    }
    expectAllowed(await t.call('GET', pathOf(route), { headers: { 'x-svc-key': undefined, authorization: `bearer ${jwt}` } }))
  })

  it('remembers a jti only until its token could no longer be accepted, then housekeeping deletes it', async () => {
    const before = await t.db.kysely.selectFrom('replay_guard').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
    expect(Number(before.n)).toBeGreaterThan(0)
    expect((await t.app.services.housekeeping.runOnce())['used credentials']).toBe(0)
    // The latest tokens here were issued 4 minutes ahead of the clock: acceptable until 5 minutes after that.
    t.clock.advance(10 * MINUTE)
    try {
      expect((await t.app.services.housekeeping.runOnce())['used credentials']).toBe(Number(before.n))
    } finally {
      t.clock.advance(-10 * MINUTE)
    }
  })

  it('counts refusals by reason in the log and on /metrics, and writes no token', async () => {
    const route = ROUTES[0]!
    const jwt = makeJwt({ method: 'GET', path: pathOf(route), signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
    expectAllowed(await sendToken(route, jwt))
    expectAllowed(await sendToken(route, jwt))
    expectRefused(await sendToken(route, jwt))
    const line = t.logs.filter((l) => l['msg'] === 'reporting authentication failed').at(-1)!
    expect(line['reason']).toBe('jwt_replayed')
    const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
    for (const reason of ['jwt_replayed', 'jwt_expired', 'jwt_stale', 'jwt_future', 'jwt_method', 'jwt_path', 'jwt_digest', 'bad_digest', 'bad_signature', 'unknown_key', 'jwt_algorithm', 'jwt_issuer', 'merchant_not_allowed', 'merchant_mismatch', 'jwt_claims', 'two_schemes', 'unsupported_scheme']) {
      expect(metrics, reason).toMatch(new RegExp(`^reporting_authentication_failures_total\\{reason="${reason}"\\} [1-9]\\d*$`, 'm'))
    }
    expect(JSON.stringify(t.logs)).not.toContain(jwt.split('.')[2])
  })
})
