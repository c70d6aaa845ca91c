// Bad input answers 400 in the reporting error body, {submitTimeUtc, reason: INVALID_DATA, message, details}, naming
// every member at fault, and stores nothing: subscriptions, updates, status changes, signing keys, replays, events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'
import { INVOICE_PAID, subscriptionBody } from '../support/webhooks.js'

const START = Date.now()
let t: TestApp
let webhookId: string
const receiverUrl = 'http://127.0.0.1:9'
const acting = { id: 'testrest', authenticatedId: 'testrest' }

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(START) })
  // testrest_two has no signing key on purpose.
  await t.app.services.webhooks.keys.save(acting, {})
  webhookId = (await t.app.services.webhooks.subscriptions.create(acting, subscriptionBody(receiverUrl) as never)).webhookId
})
afterAll(() => t.close())

const send = (method: string, path: string, body: unknown, merchantId?: string) =>
  signedCall(t, { method, path, body: typeof body === 'string' ? body : JSON.stringify(body), key: TESTREST_KEY, ...(merchantId ? { merchantId } : {}) })
const count = async (table: 'webhook_subscriptions' | 'webhook_keys' | 'webhook_events' | 'webhook_notifications') =>
  Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)

async function expectInvalid(res: Awaited<ReturnType<typeof send>>, fields: string[]) {
  expect(res.status, res.text).toBe(400)
  expect(res.json).toMatchObject({ reason: 'INVALID_DATA', message: 'One or more fields contains invalid data', submitTimeUtc: expect.stringMatching(/Z$/) })
  expect(res.json.details.map((d: { field: string }) => d.field).sort()).toEqual([...fields].sort())
  for (const d of res.json.details) expect(d.reason).toEqual(expect.any(String))
}

const create = (over: Record<string, unknown>) => ({ ...subscriptionBody(receiverUrl), ...over })
const retry = (policy: Record<string, unknown>) => create({ retryPolicy: policy })

describe('creating a subscription', () => {
  it.each([
    ['no webhookUrl', { ...subscriptionBody(receiverUrl), webhookUrl: undefined }, ['webhookUrl']],
    ['a webhookUrl that is no URL', create({ webhookUrl: 'receiver' }), ['webhookUrl']],
    ['an ftp webhookUrl', create({ webhookUrl: 'ftp://127.0.0.1/x' }), ['webhookUrl']],
    ['credentials in healthCheckUrl', create({ healthCheckUrl: 'http://user:pw@127.0.0.1/h' }), ['healthCheckUrl']],
    ['no products', create({ products: [] }), ['products']],
    ['an unknown product', create({ products: [{ productId: 'tokenManagement', eventTypes: ['tms.networktoken.updated'] }] }), ['products[0].productId']],
    ['an event type of no product listed', create({ products: [{ productId: 'customerInvoicing', eventTypes: [INVOICE_PAID, 'reporting.report.completed'] }] }), ['products[0].eventTypes[1]']],
    ['a product without event types', create({ products: [{ productId: 'customerInvoicing', eventTypes: [] }] }), ['products[0].eventTypes']],
    ['eventTypes as objects', create({ products: [{ productId: 'customerInvoicing', eventTypes: [{ eventName: INVOICE_PAID }] }] }), ['products.0.eventTypes.0']],
    ['an unknown algorithm', retry({ algorithm: 'LINEAR' }), ['retryPolicy.algorithm']],
    ['a negative firstRetry', retry({ firstRetry: -1 }), ['retryPolicy.firstRetry']],
    ['a fractional numberOfRetries', retry({ numberOfRetries: 2.5 }), ['retryPolicy.numberOfRetries']],
    ['too many retries', retry({ numberOfRetries: '99' }), ['retryPolicy.numberOfRetries']],
    ['a geometric ratio under 1', retry({ algorithm: 'GEOMETRIC', interval: 0.5 }), ['retryPolicy.interval']],
    ['a deactivateFlag that is no boolean', retry({ deactivateFlag: 'yes' }), ['retryPolicy.deactivateFlag']],
    ['too many repeated sequences', retry({ repeatSequenceCount: 11, repeatSequenceWaitTime: 'soon' }), ['retryPolicy.repeatSequenceCount', 'retryPolicy.repeatSequenceWaitTime']],
    ['a CUSTOM scope', create({ notificationScope: 'CUSTOM' }), ['notificationScope']],
    ['an OAuth security policy', create({ securityPolicy: { securityType: 'oAuth', config: { oAuthURL: 'https://auth.example/token' } } }), ['securityPolicy.securityType']],
    ['a signing key of no one', create({ securityPolicy: { securityType: 'KEY', config: { additionalConfig: { keyId: 'not-a-key' } } } }), ['securityPolicy.config.additionalConfig.keyId']],
    ['a name over 128 characters', create({ name: 'n'.repeat(129) }), ['name']],
    ['everything wrong at once', create({ webhookUrl: 'x', products: [{ productId: 'nope', eventTypes: ['x'] }], notificationScope: 'ALL', retryPolicy: { algorithm: 'FAST' } }), ['webhookUrl', 'products[0].productId', 'notificationScope', 'retryPolicy.algorithm']],
  ])('refuses %s, naming it, and stores nothing', async (_name, body, fields) => {
    const before = await count('webhook_subscriptions')
    await expectInvalid(await send('POST', '/notification-subscriptions/v2/webhooks', body), fields)
    expect(await count('webhook_subscriptions')).toBe(before)
  })

  it('refuses malformed JSON, and a subscription for an organization without a signing key', async () => {
    const malformed = await send('POST', '/notification-subscriptions/v2/webhooks', '{"webhookUrl":')
    expect(malformed.status).toBe(400)
    expect(malformed.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ reason: 'malformed request' }] })
    const noKey = await signedCall(t, { method: 'POST', path: '/notification-subscriptions/v2/webhooks', body: JSON.stringify(create({ organizationId: 'testrest_two' })), key: ACCT_KEY })
    await expectInvalid(noKey, ['securityPolicy'])
  })
})

describe('changing a subscription', () => {
  it('refuses a bad update and keeps the subscription as it was', async () => {
    const before = await t.app.services.webhooks.subscriptions.get(acting, webhookId)
    await expectInvalid(await send('PATCH', `/notification-subscriptions/v2/webhooks/${webhookId}`, { products: [{ productId: 'x', eventTypes: ['y'] }], webhookUrl: 'nowhere' }), ['products[0].productId', 'webhookUrl'])
    await expectInvalid(await send('PATCH', `/notification-subscriptions/v2/webhooks/${webhookId}`, { organizationId: 'testrest', retryPolicy: { interval: -2 } }), ['retryPolicy.interval'])
    await expectInvalid(await send('PUT', `/notification-subscriptions/v2/webhooks/${webhookId}/status`, { status: 'PAUSED' }), ['status'])
    expect(await t.app.services.webhooks.subscriptions.get(acting, webhookId)).toEqual(before)
  })
})

describe('signing keys', () => {
  it.each([
    ['an unknown action', { clientRequestAction: 'DELETE' }, ['clientRequestAction']],
    ['an OAuth credential', { keyInformation: { keyType: 'oAuthClientCredentials' } }, ['keyInformation.keyType']],
    ['another provider', { keyInformation: { provider: 'acme' } }, ['keyInformation.provider']],
    ['a zero expiry', { keyInformation: { expiryDuration: '0' } }, ['keyInformation.expiryDuration']],
    ['STORE without a key', { clientRequestAction: 'STORE' }, ['keyInformation.key']],
    ['STORE with a short key', { clientRequestAction: 'STORE', keyInformation: { key: Buffer.alloc(16).toString('base64'), keyId: 'bad id!' } }, ['keyInformation.key', 'keyInformation.keyId']],
    ['CREATE with a key', { keyInformation: { key: Buffer.alloc(32).toString('base64') } }, ['keyInformation.key']],
    ['an expiry that is no number', { keyInformation: { expiryDuration: 365 } }, ['keyInformation.expiryDuration']],
  ])('refuses %s, naming it, and stores no key', async (_name, body, fields) => {
    const before = await count('webhook_keys')
    await expectInvalid(await send('POST', '/kms/egress/v2/keys-sym', body), fields)
    expect(await count('webhook_keys')).toBe(before)
  })

  it('stores a key given with STORE, and refuses its id a second time', async () => {
    const body = { clientRequestAction: 'STORE', keyInformation: { keyId: 'my-key-1', key: Buffer.alloc(32, 7).toString('base64') } }
    const first = await send('POST', '/kms/egress/v2/keys-sym', body)
    expect(first.status).toBe(201)
    expect(first.json.keyInformation).toMatchObject({ keyId: 'my-key-1', key: body.keyInformation.key })
    const again = await send('POST', '/kms/egress/v2/keys-sym', body)
    expect(again.status).toBe(409)
    expect(again.json.details).toEqual([{ field: 'keyInformation.keyId', reason: 'a key with this id exists' }])
  })
})

describe('replays', () => {
  const ago = (days: number) => new Date(START - days * 86_400_000).toISOString()
  it.each([
    ['nothing to select by', {}, ['byTransactionTraceIdentifiers']],
    ['both selections', { byTransactionTraceIdentifiers: ['a'], byDeliveryStatus: { status: 'FAILED', hoursBack: 1 } }, ['byTransactionTraceIdentifiers']],
    ['no trace id', { byTransactionTraceIdentifiers: [] }, ['byTransactionTraceIdentifiers']],
    ['a status that cannot be replayed', { byDeliveryStatus: { status: 'DELIVERED', hoursBack: 1 } }, ['byDeliveryStatus.status']],
    ['no window', { byDeliveryStatus: { status: 'FAILED' } }, ['byDeliveryStatus.startTime', 'byDeliveryStatus.endTime']],
    ['a window over 24 hours', { byDeliveryStatus: { status: 'RETRY', startTime: ago(2), endTime: ago(0.5) } }, ['byDeliveryStatus.endTime']],
    ['a window older than 30 days', { byDeliveryStatus: { status: 'FAILED', startTime: ago(31), endTime: ago(30.9) } }, ['byDeliveryStatus.startTime']],
    ['an end before the start', { byDeliveryStatus: { status: 'FAILED', startTime: ago(1), endTime: ago(2) } }, ['byDeliveryStatus.endTime']],
    ['zero hours back', { byDeliveryStatus: { status: 'FAILED', hoursBack: 0 } }, ['byDeliveryStatus.hoursBack']],
    ['hours back with a window', { byDeliveryStatus: { status: 'FAILED', hoursBack: 2, startTime: ago(1) } }, ['byDeliveryStatus.hoursBack']],
    ['a date that is no date', { byDeliveryStatus: { status: 'FAILED', startTime: 'yesterday', endTime: ago(0) } }, ['byDeliveryStatus.startTime']],
  ])('refuses %s, naming it', async (_name, body, fields) => {
    await expectInvalid(await send('POST', `/webhooks/${webhookId}/replays`, body), fields)
  })
})

describe('events', () => {
  it.each([
    ['an unknown event type', { eventType: 'invoicing.customer.invoice.lost', data: {} }, ['eventType']],
    ['invoicing data that is not text', { eventType: INVOICE_PAID, data: { invoiceBalance: 12.5, currency: 'USD', paid: true } }, ['data.invoiceBalance', 'data.paid']],
    ['no data', { eventType: INVOICE_PAID }, ['data']],
  ])('refuses %s, naming it, and stores no event', async (_name, body, fields) => {
    const before = await count('webhook_events')
    await expectInvalid(await send('POST', '/webhooks/v1/events', body), fields)
    expect(await count('webhook_events')).toBe(before)
  })

  it('refuses an unknown event type in the sandbox trigger', async () => {
    await expectInvalid(await send('POST', '/sandbox/v1/events', { eventType: 'nope' }), ['eventType'])
  })
})
