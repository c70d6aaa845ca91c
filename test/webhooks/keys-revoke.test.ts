// Signing keys listed and revoked (the console's key page uses these): a list never carries a secret and marks the key
// that signs; a revoked key signs nothing more — at once in the process that revoked it, and within a second in any
// other (its status is read again, not remembered for ever with its opened secret).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { INVOICE_SEND, startReceiver, subscriptionBody, type Receiver } from '../support/webhooks.js'

let t: TestApp
let receiver: Receiver
const acting = { id: 'testrest', authenticatedId: 'testrest' }

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')), webhooks: { random: () => 0 } })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

const publish = () => t.app.services.webhooks.events.publish({ eventType: INVOICE_SEND, organizationId: 'testrest', data: { invoiceNumber: '1' } })

it('lists keys without their secrets, newest signing', async () => {
  const { keys } = t.app.services.webhooks
  const first = (await keys.save(acting, {})).keyInformation
  t.clock.advance(1_000)
  const second = (await keys.save(acting, { keyInformation: { expiryDuration: '1' } })).keyInformation
  const list = await keys.list('testrest')
  expect(list.map((k) => [k.keyId, k.status, k.signing])).toEqual([
    [second.keyId, 'ACTIVE', true],
    [first.keyId, 'ACTIVE', false],
  ])
  expect(JSON.stringify(list)).not.toContain(first.key)
  expect(JSON.stringify(list)).not.toContain(second.key)
  t.clock.advance(2 * 86_400_000)
  expect((await keys.list('testrest')).map((k) => [k.status, k.signing])).toEqual([
    ['EXPIRED', false],
    ['ACTIVE', true],
  ])
  await expect(keys.revoke({ id: 'othermerchant', authenticatedId: 'othermerchant' }, first.keyId)).rejects.toMatchObject({ kind: 'not_found' })
  await expect(keys.revoke(acting, 'no-such-key')).rejects.toMatchObject({ kind: 'not_found' })
})

it('stops signing with a key revoked by another process within a second', async () => {
  const wh = t.app.services.webhooks
  const key = (await wh.keys.save(acting, {})).keyInformation
  await wh.subscriptions.create(acting, subscriptionBody(receiver.url, { securityPolicy: { securityType: 'key', config: { additionalConfig: { keyId: key.keyId } } } }) as never)
  await publish()
  await t.app.services.jobs.runDue()
  expect(receiver.received).toHaveLength(1)
  expect(String(receiver.received[0]!.headers['v-c-signature'])).toContain(`keyId=${key.keyId}`)
  // Another process revokes it: only the row changes, this process's remembered key does not.
  await t.db.kysely.updateTable('webhook_keys').set({ status: 'REVOKED' }).where('id', '=', key.keyId).execute()
  t.clock.advance(1_001)
  await publish()
  await t.app.services.jobs.runDue()
  expect(receiver.received).toHaveLength(1)
  const [latest] = await wh.notifications.listWithAttempts({ organizationIds: ['testrest'], limit: 1 })
  expect(latest!.deliveries.map((a) => a.result)).toEqual(['no_key'])
})
