// At LOG_LEVEL=trace, nothing of a notification reaches the log: not the signing keys (created or stored), not the
// private key a caller sends with an encryption certificate (accepted or refused), not the event's data, not the signed bodies or their signatures, not the receivers' answers. Status changes the service
// makes itself are logged, with their reason only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { INVOICE_PAID, mleCertificate, startReceiver, subscriptionBody, type Receiver } from '../support/webhooks.js'

let t: TestApp
let receiver: Receiver
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()), env: { LOG_LEVEL: 'trace' } })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

describe('webhook logs', () => {
  it('carry no key, body, signature or answer', async () => {
    const stored = Buffer.alloc(32, 9).toString('base64')
    const created = await signedCall(t, { method: 'POST', path: '/kms/egress/v2/keys-sym', body: '{}', key: TESTREST_KEY })
    await signedCall(t, { method: 'POST', path: '/kms/egress/v2/keys-sym', body: JSON.stringify({ clientRequestAction: 'STORE', keyInformation: { key: stored } }), key: TESTREST_KEY })
    const made = created.json.keyInformation.key as string
    const mle = mleCertificate()
    const asym = (keyInformation: Record<string, unknown>) => signedCall(t, { method: 'POST', path: '/kms/egress/v2/keys-asym', body: JSON.stringify({ keyInformation }), key: TESTREST_KEY })
    expect((await asym({ pub: mle.pub, pvt: mle.privateDer })).status).toBe(201)
    expect((await asym({ pub: mle.pub, pvt: mle.privateDer, expiryDuration: '0' })).status).toBe(400)
    expect((await asym({ pub: mle.privateDer })).status).toBe(400) // a private key sent as the certificate
    await signedCall(t, { method: 'POST', path: '/notification-subscriptions/v2/webhooks', body: JSON.stringify(subscriptionBody(receiver.url)), key: TESTREST_KEY })
    receiver.answer = (_r, n) => (n === 0 ? { status: 500, body: 'answer-marker-500' } : { status: 410, body: 'answer-marker-410' })
    await signedCall(t, { method: 'POST', path: '/webhooks/v1/events', body: JSON.stringify({ eventType: INVOICE_PAID, data: { payerName: 'data-marker-payer' } }), key: TESTREST_KEY })
    await t.app.services.jobs.runDue()
    t.clock.advance(120_000) // the first retry, a minute and its jitter later
    await t.app.services.jobs.runDue()
    expect(receiver.received).toHaveLength(2)

    const all = JSON.stringify(t.logs)
    for (const secret of [made, stored, mle.privateDer.slice(40, 120), 'data-marker-payer', 'answer-marker-500', 'answer-marker-410', ...receiver.received.flatMap((r) => [String(r.headers['v-c-signature']), String(r.headers['webhook-signature'])])]) {
      expect(all).not.toContain(secret)
    }
    const change = t.logs.find((l) => l['msg'] === 'webhook subscription status changed')
    expect(change).toMatchObject({ status: 'INACTIVE', reason: 'the receiver answered 410 Gone' })
  })
})
