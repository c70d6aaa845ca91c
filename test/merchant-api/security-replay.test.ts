// Signed writes are single-use (issue 19, item 4): the same HTTP-Signature-signed POST, PUT, PATCH or DELETE sent
// again while its date is in the window is refused with the 401 of any bad signature, on every write behind the
// merchant API gateway (test/support/security/merchant-routes.ts); a signed read may be sent again (a signature has
// no nonce, and the SDK sends a download twice).
// The two-process race is in signature-processes.test.ts; the JWT's jti rule in security-jwt.test.ts.
import { request } from 'undici'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, signedCall, signedHeaders } from '../support/reporting.js'
import { MERCHANT_ROUTES, expectAllowed, expectRefused, prepareSecurityApp, probe, requestFor, type MerchantRoute } from '../support/security/merchant-routes.js'
import { webhookApis, createSigningKey } from '../support/webhooks.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), reportingRoutes: [probe] })
  await prepareSecurityApp(t)
})
afterAll(() => t.close())

const WRITES = MERCHANT_ROUTES.filter((r) => !r.route.startsWith('GET '))
const READS = MERCHANT_ROUTES.filter((r) => r.route.startsWith('GET '))

/** One signed request, its headers kept so that it can be sent again exactly. */
function signedOnce(method: string, path: string, body?: string, key = TESTREST_KEY, merchantId?: string) {
  const headers = signedHeaders({ method, path, body, key, merchantId, date: t.clock.now() })
  return () => t.call(method, path, { headers, body })
}

const count = async (table: 'webhook_events' | 'webhook_keys' | 'replay_guard', organizationId?: string) => {
  let query = t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n'))
  if (organizationId) query = query.where('organization_id' as never, '=', organizationId as never)
  return Number((await query.executeTakeFirstOrThrow()).n)
}

describe.each(WRITES.map((r) => [r.route, r] as const))('a replayed signed write: %s', (_name, route: MerchantRoute) => {
  it('is refused as any bad signature is, while its date is in the window; signed anew it passes', async () => {
    t.clock.advance(1000)
    const { method, path, body } = await requestFor(route)
    const send = signedOnce(method, path, body)
    expectAllowed(await send())
    expectRefused(await send())
    // Not more: the sandbox clock's next body must stay ahead of the organization's reporting time.
    t.clock.advance(30_000)
    expectRefused(await send())
    expectAllowed(await signedCall(t, { ...(await requestFor(route)), key: TESTREST_KEY }))
  })
})

describe.each(READS.map((r) => [r.route, r] as const))('a signed read sent again: %s', (_name, route: MerchantRoute) => {
  it('is answered every time', async () => {
    t.clock.advance(1000)
    const { method, path } = await requestFor(route)
    const send = signedOnce(method, path)
    for (let i = 0; i < 3; i++) expectAllowed(await send())
  })
})

describe('replays of the writes issue 19 names', () => {
  it('POST /webhooks/v1/events sent twice publishes one event', async () => {
    t.clock.advance(1000)
    const before = await count('webhook_events', 'testrest')
    const send = signedOnce('POST', '/webhooks/v1/events', JSON.stringify({ eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: 'replayed' } }))
    expect((await send()).status).toBe(201)
    expectRefused(await send())
    // The date may be five minutes off the clock: the last second of the window is still refused.
    t.clock.advance(5 * 60_000)
    expectRefused(await send())
    expect(await count('webhook_events', 'testrest')).toBe(before + 1)
  })

  it('POST /kms/egress/v2/keys-sym replayed 60 seconds later hands out no key', async () => {
    t.clock.advance(1000)
    const before = await count('webhook_keys', 'testrest')
    const send = signedOnce('POST', '/kms/egress/v2/keys-sym', '{}')
    const first = await send()
    expect(first.status, first.text).toBe(201)
    expect(first.json.keyInformation.key).toEqual(expect.any(String))
    t.clock.advance(60_000)
    const replayed = await send()
    expectRefused(replayed)
    expect(replayed.text).not.toContain(first.json.keyInformation.key)
    expect(await count('webhook_keys', 'testrest')).toBe(before + 1)
  })

  it('PATCH, PUT status and DELETE of a webhook subscription: the second use is 401, not the route answer', async () => {
    t.clock.advance(1000)
    const created = await t.app.services.webhooks.subscriptions.create({ id: 'testrest', authenticatedId: 'testrest' }, { products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' })
    const path = `/notification-subscriptions/v2/webhooks/${created.webhookId}`
    for (const send of [signedOnce('PATCH', path, '{"description":"patched"}'), signedOnce('PUT', `${path}/status`, '{"status":"INACTIVE"}'), signedOnce('DELETE', path)]) {
      expectAllowed(await send())
      expectRefused(await send())
    }
  })

  it('a meta-key signature replayed for another merchant below the account (the unsigned header changed) is refused', async () => {
    t.clock.advance(1000)
    const body = '{"name":"meta"}'
    const headers = signedHeaders({ method: 'POST', path: '/reporting/v3/probe', body, key: ACCT_KEY, merchantId: 'testrest', date: t.clock.now() })
    const first = await t.call('POST', '/reporting/v3/probe', { headers, body })
    expect(first.json.organizationId).toBe('testrest')
    expectRefused(await t.call('POST', '/reporting/v3/probe', { headers: { ...headers, 'v-c-merchant-id': 'testrest_two' }, body }))
  })

  it('counts the refusal by its reason', async () => {
    const metrics = (await t.call('GET', '/metrics', { headers: { 'x-svc-key': undefined } })).text
    expect(metrics).toMatch(/^reporting_authentication_failures_total\{reason="signature_replayed"\} [1-9]\d*$/m)
  })

  it('remembers a signature until its date leaves the window, then housekeeping deletes it', async () => {
    // What the earlier tests' four-minute steps took out of the window goes first.
    await t.app.services.housekeeping.runOnce()
    const remembered = await count('replay_guard')
    expect(remembered).toBeGreaterThan(0)
    expect((await t.app.services.housekeeping.runOnce())['used credentials']).toBe(0)
    t.clock.advance(5 * 60_000 + 1000)
    expect((await t.app.services.housekeeping.runOnce())['used credentials']).toBe(remembered)
  })
})

describe('a write the official SDK signed, sent again', () => {
  let real: TestApp
  let proxy: Server
  const seen: { method: string; url: string; headers: Record<string, string>; body: string }[] = []
  beforeAll(async () => {
    // The SDK dates its signatures with real time; the server's clock starts there too.
    real = await startTestApp({ clock: new FakeClock(Date.now()) })
    // Between the SDK and the server, a recorder: what the SDK sent, byte for byte, is what the replay sends.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['connection', 'content-length', 'transfer-encoding'].includes(name))) as Record<string, string>
        const body = Buffer.concat(chunks).toString('utf8')
        seen.push({ method: req.method!, url: req.url!, headers, body })
        request(real.baseUrl + req.url!, { method: req.method as 'POST', headers, body: body || undefined }).then(
          async (answer) => res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') }).end(await answer.body.text()),
          () => res.writeHead(502).end(),
        )
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve))
    await real.close()
  })

  it('saveSymEgressKey: the SDK gets its key, the same request again gets the 401 and no key', async () => {
    const apis = webhookApis({ ...real, baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }, 'testrest', TESTREST_KEY)
    const { key } = await createSigningKey(apis, 'testrest')
    const sent = seen.find((s) => s.method === 'POST' && s.url === '/kms/egress/v2/keys-sym')!
    expect(sent.headers['signature']).toMatch(/keyid=/)
    real.clock.advance(60_000)
    const replayed = await real.call('POST', sent.url, { headers: { ...sent.headers, 'x-svc-key': undefined }, body: sent.body })
    expectRefused(replayed)
    expect(replayed.text).not.toContain(key)
  })
})
