// One slow receiver never delays the others: a receiver that never answers holds at most its subscription's slots,
// while another subscription's notifications go out at once; the slow one's attempts end at their deadline and its
// other deliveries are given back to the queue rather than waiting in shared slots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { INVOICE_PAID, startReceiver, subscriptionBody, type Receiver } from '../support/webhooks.js'

let t: TestApp
let slow: Receiver
let fast: Receiver
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()), env: { OUTBOUND_TIMEOUT_MS: '1500' }, webhooks: { random: () => 0 } })
  slow = await startReceiver()
  slow.answer = () => ({ hang: true })
  fast = await startReceiver()
  for (const [org, receiver] of [['testrest', slow], ['othermerchant', fast]] as const) {
    const acting = { id: org, authenticatedId: org }
    await t.app.services.webhooks.keys.save(acting, {})
    await t.app.services.webhooks.subscriptions.create(acting, subscriptionBody(receiver.url) as never)
  }
})
afterAll(async () => {
  await slow.close()
  await fast.close()
  await t.close()
})

describe('a slow receiver', () => {
  it('does not hold back another subscription’s deliveries', async () => {
    const { events } = t.app.services.webhooks
    // The slow receiver's notifications first: they are claimed first.
    await t.db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 100; i++) await events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} }, trx)
      for (let i = 0; i < 20; i++) await events.publish({ eventType: INVOICE_PAID, organizationId: 'othermerchant', data: {} }, trx)
    })
    const started = Date.now()
    const run = t.app.services.jobs.runDue()
    await fast.waitFor(20, 1_400)
    // All twenty were delivered while the slow receiver's attempts were still waiting for an answer.
    expect(Date.now() - started).toBeLessThan(1_400)
    expect(slow.received.length).toBeLessThanOrEqual(64) // its subscription's slots, no more
    await run
    const attempts = await t.db.kysely.selectFrom('webhook_attempts').select(['result']).where('notification_id', 'in', t.db.kysely.selectFrom('webhook_notifications').select('id').where('organization_id', '=', 'testrest')).execute()
    expect(attempts.length).toBe(slow.received.length)
    expect(attempts.every((a) => a.result === 'timeout')).toBe(true)
    const pending = await t.db.kysely.selectFrom('jobs').select(['status', 'attempts']).where('status', '=', 'pending').where('kind', '=', 'webhooks.deliver').execute()
    // The attempts that timed out wait for their retry; the rest were given back without an attempt counted.
    expect(pending).toHaveLength(100)
    expect(pending.filter((j) => j.attempts === 0)).toHaveLength(100 - slow.received.length)
  }, 30_000)
})
