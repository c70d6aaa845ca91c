// The fuzz gate of the merchant API family (issue 19): generated requests to every reporting, webhook-management,
// event and sandbox route, correctly signed when sent (HTTP Signature under the sandbox keys, the SDK's JWT with
// HS256 and RS256, OAuth bearer tokens), their bodies, queries, headers, paths and methods mangled field by field,
// a share with a fault in their authentication, and raw malformed HTTP on the family's paths, against a real server
// at LOG_LEVEL=trace. Every answer must be in the family's contract (docs/errors/reporting.md), none a 5xx, none
// slower than 2 s, the server alive at the end and no secret in its log (the sandbox keys' secrets, the JWT private
// key, bearer tokens, webhook signing keys). Beside test/fuzz.test.ts (banking and OAuth), so the two run in
// parallel. FUZZ_SEED, FUZZ_REQUESTS and FUZZ_CASE override the defaults; `npm run fuzz` runs long campaigns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeFailure, formatSummary, runCampaign, type Target } from './fuzz/engine.js'
import { merchantTemplates, type MerchantContext } from './fuzz/merchant.js'
import { prepareMerchant } from './fuzz/merchant-setup.js'
import { MERCHANT_PREFIXES, PARTNER_REDIRECT } from './fuzz/oracle.js'
import { LIMITS, THROTTLES_RAISED } from './fuzz/raw.js'
import { authenticate, JWT_FAULTS, OAUTH_FAULTS, SIGNATURE_FAULTS } from './fuzz/signing.js'
import { send, type Auth } from './fuzz/wire.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { makeCertificate, type TestCertificate } from './support/reporting-jwt.js'
import { MERCHANT_ROUTES } from './support/security/merchant-routes.js'
import { split } from './support/security/suite.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_260_619)
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 1_500)
const ONLY = process.env['FUZZ_CASE'] === undefined ? undefined : Number(process.env['FUZZ_CASE'])

let t: TestApp
let target: Target
let certificate: TestCertificate
beforeAll(async () => {
  const env = Object.fromEntries(Object.entries({ ...LIMITS, ...THROTTLES_RAISED }).map(([k, v]) => [k, String(v)]))
  t = await startTestApp({ env: { ...env, LOG_LEVEL: 'trace' } })
  const created = await t.app.services.oauth.clients.create({ name: 'Fuzz partner', redirectUris: [PARTNER_REDIRECT], scopes: ['reporting'], public: false })
  // Valid on the fake clock's date as well as today's.
  certificate = makeCertificate({ organization: 'testrest', notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2045-01-01T00:00:00Z') })
  await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(certificate.pem))
  target = {
    baseUrl: t.baseUrl,
    key: t.sandboxKey,
    partner: { clientId: created.client.publicId!, secret: created.secret! },
    logText: async () => t.logs.map((line) => JSON.stringify(line, (_k, v: unknown) => (typeof v === 'number' ? 0 : v))).join('\n'),
    running: () => true,
    now: () => t.clock.now(),
    jwtCertificate: { serialNumber: certificate.serialNumber, privateKey: certificate.privateKey, certificatePem: certificate.pem },
  }
})
afterAll(async () => {
  certificate?.remove()
  await t?.close()
})

describe('the templates', () => {
  const ctx: MerchantContext = { nowMs: Date.UTC(2026, 0, 15), webhookId: 'w1', spareWebhookId: 'w2', otherWebhookId: 'w3', reportId: 'r1', notificationId: 'n1', signingKeyId: 'k1', storeKey: 'k', mlePub: 'p', rs256: true, acctToken: true }
  const templates = merchantTemplates(ctx, 1_000)
  const covered = (method: string, pattern: string) => templates.some((tpl) => tpl.method === method && new RegExp(`^${pattern.replace(/\{[^}]+\}|:[A-Za-z]+/g, '[^/]+')}$`).test(tpl.path))

  it('cover every route the security suites list (test/support/security/merchant-routes.ts), the test-only probe aside', () => {
    const missing = MERCHANT_ROUTES.filter((r) => !r.route.endsWith('/probe'))
      .map(split)
      .filter((r) => !covered(r.method, r.pattern))
    expect(missing).toEqual([])
  })

  it('cover every operation of the OpenAPI document under the family prefixes', async () => {
    const doc = (await t.call('GET', '/openapi.json')).json as { paths: Record<string, Record<string, unknown>> }
    const operations = Object.entries(doc.paths)
      .filter(([path]) => MERCHANT_PREFIXES.some((prefix) => path.startsWith(`${prefix}/`)) && !path.endsWith('/probe'))
      .flatMap(([path, methods]) => Object.keys(methods).filter((m) => m !== 'parameters').map((m) => ({ method: m.toUpperCase(), path })))
    expect(operations.length).toBeGreaterThan(30)
    expect(operations.filter((o) => !covered(o.method, o.path))).toEqual([])
  })
})

describe('the signer', () => {
  // Faults the contract accepts: header names and the Bearer scheme are case-insensitive, and Node keeps the first
  // of repeated Authorization headers. Faults of a random claim, and a fixed jti (its first use is admitted), vary.
  const ADMITTED = new Set(['names-uppercase', 'scheme-lowercase', 'two-authorizations'])
  const VARYING = new Set(['claim-junk', 'claim-drop', 'jti-fixed'])
  const credentials: Auth[] = [
    { scheme: 'signature', key: 'testrest' }, { scheme: 'signature', key: 'acct', merchant: 'testrest' }, { scheme: 'signature', key: 'other' },
    { scheme: 'jwt-hs256', key: 'testrest' }, { scheme: 'jwt-hs256', key: 'acct', merchant: 'testrest' }, { scheme: 'jwt-rs256', key: 'testrest' },
    { scheme: 'oauth', key: 'testrest' }, { scheme: 'oauth', key: 'acct', merchant: 'testrest' },
  ]
  let n = 0
  /** A signed POST with a body and a query, unique each time (a replay guard may refuse a repeated signed write). */
  const publish = async (auth: Auth, creds: Awaited<ReturnType<typeof prepareMerchant>>['creds']) => {
    const body = JSON.stringify({ eventType: 'reporting.report.no-data', data: { n: ++n } })
    const org = auth.merchant ?? { testrest: 'testrest', acct: 'testrest_acct', other: 'othermerchant' }[auth.key]
    const c = authenticate({ type: 'http', note: '', method: 'POST', target: `/sandbox/v1/events?organizationId=${org}`, headers: [['Host', '127.0.0.1'], ['Content-Type', 'application/json']], body, auth }, creds)
    return (await send(t.baseUrl, c, 10_000)).status
  }

  it('is admitted with every credential, and refused with every fault in its authentication', async () => {
    const { creds } = await prepareMerchant(target)
    const admitted = await Promise.all(credentials.map(async (auth) => [`${auth.scheme} ${auth.key}`, await publish(auth, creds)] as const))
    expect(admitted.filter(([, status]) => status !== 201)).toEqual([])
    const faults = [
      ...SIGNATURE_FAULTS.map((kind) => ({ scheme: 'signature', key: 'testrest', mangle: { kind, value: 'x' } }) as const),
      ...JWT_FAULTS.map((kind) => ({ scheme: 'jwt-rs256', key: 'testrest', mangle: { kind, value: 'x' } }) as const),
      ...OAUTH_FAULTS.map((kind) => ({ scheme: 'oauth', key: 'testrest', mangle: { kind, value: 'x' } }) as const),
    ].filter((a) => !VARYING.has(a.mangle.kind))
    const answered = await Promise.all(faults.map(async (auth) => [`${auth.scheme} ${auth.mangle.kind}`, await publish(auth, creds), ADMITTED.has(auth.mangle.kind) ? 201 : 401] as const))
    expect(answered.filter(([, status, expected]) => status !== expected)).toEqual([])
  })
})

it(`answers the sweep and ${REQUESTS} generated merchant requests (seed ${SEED}) in contract, on time, alive, and logs no secret`, async () => {
  console.log(`fuzz (merchant): seed ${SEED}, ${REQUESTS} requests${ONLY === undefined ? '' : `, case ${ONLY} only`} (replay: FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} FUZZ_CASE=<n>)`)
  // The campaign's setup signs the same writes the test above did (a signing key, webhooks): a second later, so they
  // are new requests rather than replays (a signed write is accepted once).
  t.clock.advance(1_000)
  const summary = await runCampaign(target, { seed: SEED, requests: REQUESTS, only: ONLY, families: 'merchant', sweep: true, concurrency: 6, log: (line) => console.log(line) })
  console.log(formatSummary(summary))
  const failures = summary.failures.map((f) => describeFailure(SEED, REQUESTS, f, 'merchant')).join('\n')
  expect({ outside: summary.outsideContract, unexpected5xx: summary.unexpected5xx, slow: summary.slow, alive: summary.alive, logCaptured: summary.logCaptured, secrets: summary.secretsInLog }, failures).toEqual({
    outside: 0,
    unexpected5xx: 0,
    slow: 0,
    alive: true,
    logCaptured: true,
    secrets: [],
  })
  // Most cases get past authentication: the gate tests the routes, not only the gateway's 401.
  const admitted = Object.entries(summary.byAnswer).filter(([label]) => label.startsWith('reporting') && label !== 'reporting 401').reduce((n, [, c]) => n + c, 0)
  if (ONLY === undefined) expect(admitted, formatSummary(summary)).toBeGreaterThan(summary.requests / 2)
}, 240_000)
