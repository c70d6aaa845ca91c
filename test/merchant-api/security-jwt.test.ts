// The merchant API family through the shared security suite, JWT part: every route behind the family's gateway
// (test/support/security/merchant-routes.ts) against every way a JWT (the SDK's `jwt` authenticationType, made here as
// the SDK makes it) must not be allowed: replayed, expired or too old, for another method, path or body, signed by an
// unregistered certificate, another key or a revoked one, for a merchant outside the key's tree, and another tenant's
// organizationId. Every refusal is the same 401.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY } from '../support/reporting.js'
import { makeCertificate, makeJwt, type JwtOptions, type TestCertificate } from '../support/reporting-jwt.js'
import { MERCHANT_ROUTES, expectAllowed, expectRefused, merchantRoute, prepareSecurityApp, probe, requestFor, withQuery, type MerchantRequest, type MerchantRoute } from '../support/security/merchant-routes.js'
import { describeSecuritySuite } from '../support/security/suite.js'

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

/** Sends the call with a JWT made for it (testrest's certificate unless told), the request changed as told. */
function sendCall(request: MerchantRequest, o: Overrides = {}) {
  const path = o.path ?? request.path
  const body = o.body ?? request.body
  const jwt = makeJwt({ method: request.method, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now(), ...o, path, body })
  return sendToken(request, jwt, { ...o, sendPath: o.sendPath ?? path, sendBody: o.sendBody ?? body })
}

/** Sends the route's call for the merchant the token names (testrest unless told), with a JWT made for it. */
const send = async (route: MerchantRoute, o: Overrides = {}) => sendCall(await requestFor(route, o.merchantId), o)

/** Sends a JWT made elsewhere with the call (its path and body unless told). */
function sendToken(request: MerchantRequest, jwt: string, o: Overrides = {}) {
  const body = o.sendBody ?? request.body
  const headers = { 'x-svc-key': undefined, authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers }
  return t.call(request.method, o.sendPath ?? request.path, { headers, body })
}

const at = (offsetMs: number) => new Date(t.clock.now().getTime() + offsetMs)
const isGet = (route: MerchantRoute) => route.route.startsWith('GET ')

describeSecuritySuite<MerchantRoute>({
  family: 'merchant API (JWT)',
  routes: MERCHANT_ROUTES,
  // RS256 under a registered certificate, and HS256 under a reporting key.
  allowed: async (route) => [await send(route), await send(route, { signer: { key: TESTREST_KEY } })],
  refusals: {
    'unknown credential': (route) => send(route, { signer: { cert: strangerCert } }),
    // The right kid with another key: the stranger's certificate under the merchant's serial number, another secret.
    'wrong secret': async (route) => [await send(route, { signer: { cert: strangerCert }, header: { kid: merchantCert.serialNumber } }), await send(route, { signer: { key: { ...TESTREST_KEY, secret: OTHER_KEY.secret } } })],
    // A certificate and a shared secret, each allowed until revoked.
    async 'revoked credential'(route) {
      const cert = makeCertificate({ organization: 'testrest', ...validity })
      let byCertificate: Response
      try {
        const registered = await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(cert.pem))
        expectAllowed(await send(route, { signer: { cert } }))
        await t.app.services.reportingKeys.revoke(registered.id)
        byCertificate = await send(route, { signer: { cert } })
      } finally {
        cert.remove()
      }
      const { key, secret } = await t.app.services.reportingKeys.create('testrest')
      expectAllowed(await send(route, { signer: { key: { id: key.id, secret } } }))
      await t.app.services.reportingKeys.revoke(key.id)
      return [byCertificate, await send(route, { signer: { key: { id: key.id, secret } } })]
    },
  },
  expectAllowed,
  expectRefused,
  cases: [
    {
      title: 'refuses a JWT shown again (a GET: a third time, as the SDK sends a download twice)',
      async run(route) {
        const request = await requestFor(route)
        const jwt = makeJwt({ ...request, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
        expectAllowed(await sendToken(request, jwt))
        if (isGet(route)) expectAllowed(await sendToken(request, jwt))
        expectRefused(await sendToken(request, jwt))
      },
    },
    {
      title: 'refuses an expired JWT and one issued too long ago, allows one within the five minutes of skew',
      async run(route) {
        expectRefused(await send(route, { now: at(-8 * MINUTE) }))
        expectRefused(await send(route, { claims: { iat: Math.floor(at(-6 * MINUTE).getTime() / 1000), exp: Math.floor(at(10 * MINUTE).getTime() / 1000) } }))
        expectRefused(await send(route, { now: at(6 * MINUTE) }))
        expectAllowed(await send(route, { now: at(-4 * MINUTE) }))
        expectAllowed(await send(route, { now: at(4 * MINUTE) }))
      },
    },
    {
      title: 'refuses a JWT for another method or another path',
      async run(route) {
        const method = route.route.split(' ')[0]!
        expectRefused(await send(route, { claims: { 'request-method': isGet(route) ? 'delete' : 'get' } }))
        expectRefused(await send(route, { claims: { 'request-method': method } }))
        const request = await requestFor(route)
        expectRefused(await sendCall(request, { sendPath: withQuery(request, 'organizationId=testrest') }))
        expectRefused(await send(route, { claims: { 'request-resource-path': '/reporting/v3/report-definitions/PayerAuthDetailClass' } }))
      },
    },
    {
      title: 'refuses a JWT whose digest is of another body, or without one where there is a body',
      async run(route) {
        const digest = createHash('sha256').update('{"name":"someone else"}').digest('base64')
        expectRefused(await send(route, { claims: { digest, 'digest-algorithm': 'SHA-256' } }))
        const request = await requestFor(route)
        if (request.body !== undefined) {
          expectRefused(await sendCall(request, { sendBody: request.body.replace('}', ' }') }))
          expectRefused(await send(route, { claims: { digest: undefined, 'digest-algorithm': undefined } }))
          expectRefused(await send(route, { claims: { 'digest-algorithm': 'SHA-1' } }))
        }
      },
    },
    {
      title: 'refuses an algorithm other than RS256 and HS256, and the certificate used as an HMAC secret',
      async run(route) {
        expectRefused(await send(route, { header: { alg: 'none' } }))
        expectRefused(await send(route, { header: { alg: 'RS512' } }))
        const certAsSecret = { id: merchantCert.serialNumber, secret: Buffer.from(merchantCert.pem).toString('base64') }
        expectRefused(await send(route, { signer: { key: certAsSecret } }))
      },
    },
    {
      title: "refuses a merchant outside the key's tree, an issuer that is not the key's, and a header that contradicts the token",
      async run(route) {
        expectRefused(await send(route, { merchantId: 'testrest_two' }))
        expectRefused(await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', merchantId: 'othermerchant' }))
        expectRefused(await send(route, { issuer: 'testrest_acct' }))
        expectRefused(await send(route, { headers: { 'v-c-merchant-id': 'testrest_two' } }))
        expectRefused(await send(route, { claims: { 'request-host': undefined } }))
      },
    },
    {
      title: 'allows the meta key: the account signs for a merchant below it (RS256 and HS256)',
      async run(route) {
        expectAllowed(await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', merchantId: 'testrest_two' }))
        expectAllowed(await send(route, { signer: { key: ACCT_KEY }, issuer: 'testrest_acct', merchantId: 'testrest_two' }))
      },
    },
    {
      title: "refuses another tenant's organizationId exactly as an unknown one",
      async run(route) {
        const request = await requestFor(route)
        const answers = []
        for (const org of ['othermerchant', 'nosuchorg', 'testrest_two', 'testrest_acct']) {
          const path = withQuery(request, `organizationId=${org}`)
          answers.push(await sendCall(request, { path, sendPath: path }))
        }
        for (const res of answers) {
          expect(res.status).toBe(404)
          expect({ ...res.json, submitTimeUtc: undefined }).toEqual({ ...answers[1]!.json, submitTimeUtc: undefined })
        }
      },
    },
  ],
})

describe('the JWT scheme', () => {
  it('acts for the token merchant, or the organizationId below it', async () => {
    const route = merchantRoute('GET /reporting/v3/probe')
    expect((await send(route)).json).toEqual({ organizationId: 'testrest', authenticatedId: 'testrest', scheme: 'jwt' })
    const path = withQuery(await requestFor(route), 'organizationId=testrest_two')
    const below = await send(route, { signer: { cert: accountCert }, issuer: 'testrest_acct', path, sendPath: path })
    expect(below.json).toEqual({ organizationId: 'testrest_two', authenticatedId: 'testrest_acct', scheme: 'jwt' })
  })

  it('refuses a signature header beside the JWT, and Authorization schemes other than Bearer', async () => {
    const route = merchantRoute('GET /reporting/v3/report-definitions')
    expectRefused(await send(route, { headers: { signature: 'keyid="x", algorithm="HmacSHA256", headers="host", signature="x"' } }))
    const { path } = await requestFor(route)
    const jwt = makeJwt({ method: 'GET', path, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
    for (const authorization of [jwt, `Basic ${jwt}`, `DPoP ${jwt}`, `Bearer ${jwt} extra`]) {
      expectRefused(await t.call('GET', path, { headers: { 'x-svc-key': undefined, authorization } }))
    }
    expectAllowed(await t.call('GET', path, { headers: { 'x-svc-key': undefined, authorization: `bearer ${jwt}` } }))
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
    const request = await requestFor(merchantRoute('GET /reporting/v3/report-definitions'))
    const jwt = makeJwt({ ...request, signer: { cert: merchantCert }, issuer: 'testrest', now: t.clock.now() })
    expectAllowed(await sendToken(request, jwt))
    expectAllowed(await sendToken(request, jwt))
    expectRefused(await sendToken(request, jwt))
    const line = t.logs.filter((l) => l['msg'] === 'reporting authentication failed').at(-1)!
    expect(line['reason']).toBe('jwt_replayed')
    const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
    for (const reason of ['jwt_replayed', 'jwt_expired', 'jwt_stale', 'jwt_future', 'jwt_method', 'jwt_path', 'jwt_digest', 'bad_digest', 'bad_signature', 'unknown_key', 'jwt_algorithm', 'jwt_issuer', 'merchant_not_allowed', 'merchant_mismatch', 'jwt_claims', 'two_schemes', 'unsupported_scheme']) {
      expect(metrics, reason).toMatch(new RegExp(`^reporting_authentication_failures_total\\{reason="${reason}"\\} [1-9]\\d*$`, 'm'))
    }
    expect(JSON.stringify(t.logs)).not.toContain(jwt.split('.')[2])
  })
})
