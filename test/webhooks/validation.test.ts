// Bad input answers 400 in the reporting error body, {submitTimeUtc, reason: INVALID_DATA, message, details}, naming
// every member at fault, and stores nothing: subscriptions, updates, status changes, signing keys, encryption
// certificates, replays, events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'
import { INVOICE_PAID, mleCertificate, subscriptionBody } from '../support/webhooks.js'

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

// Each call a second after the last: this file sends some bodies more than once, and the same signed write twice is
// a replay (refused whatever the body).
const send = (method: string, path: string, body: unknown, merchantId?: string) => {
  t.clock.advance(1000)
  return signedCall(t, { method, path, body: typeof body === 'string' ? body : JSON.stringify(body), key: TESTREST_KEY, ...(merchantId ? { merchantId } : {}) })
}
const count = async (table: 'webhook_subscriptions' | 'webhook_keys' | 'webhook_certificates' | 'webhook_events' | 'webhook_notifications') =>
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

describe('encryption certificates (keys-asym)', () => {
  const day = 86_400_000
  const good = mleCertificate()
  const expired = mleCertificate({ notAfter: new Date(START - day) })
  const notYet = mleCertificate({ notBefore: new Date(START + day), notAfter: new Date(START + 400 * day) })
  const weak = mleCertificate({ bits: 1024 })
  const asym = (info: Record<string, unknown>, over: Record<string, unknown> = {}) => ({ keyInformation: { pub: good.pub, ...info }, ...over })
  const post = (body: unknown, merchantId?: string) => send('POST', '/kms/egress/v2/keys-asym', body, merchantId)

  it.each([
    ['no pub', { keyInformation: { organizationId: 'testrest' } }, ['keyInformation.pub']],
    ['no body members at all', {}, ['keyInformation.pub']],
    ['a pub that is not base64', asym({ pub: 'not base64 at all!' }), ['keyInformation.pub']],
    ['a pub that is base64 of no certificate', asym({ pub: Buffer.from('hello certificate').toString('base64') }), ['keyInformation.pub']],
    ['a private key (PKCS#8 DER) as pub', asym({ pub: good.privateDer }), ['keyInformation.pub']],
    ['a private key (PEM) as pub', asym({ pub: good.privatePem }), ['keyInformation.pub']],
    ['a PEM block that is no certificate', asym({ pub: `-----BEGIN PUBLIC KEY-----\n${good.pub}\n-----END PUBLIC KEY-----` }), ['keyInformation.pub']],
    ['an expired certificate', asym({ pub: expired.pub }), ['keyInformation.pub']],
    ['a certificate not valid yet', asym({ pub: notYet.pub }), ['keyInformation.pub']],
    ['an RSA key under 2048 bits', asym({ pub: weak.pub }), ['keyInformation.pub']],
    ['a zero expiry', asym({ expiryDuration: '0' }), ['keyInformation.expiryDuration']],
    ['an expiry over ten years', asym({ expiryDuration: '3651' }), ['keyInformation.expiryDuration']],
    ['an expiry that is no number', asym({ expiryDuration: 'a year' }), ['keyInformation.expiryDuration']],
    ['a status other than ACTIVE', asym({ status: 'REVOKED' }), ['keyInformation.status']],
    ['a shared-secret keyType', asym({ keyType: 'sharedSecret' }), ['keyInformation.keyType']],
    ['another provider', asym({ provider: 'acme' }), ['keyInformation.provider']],
    ['an unknown action', asym({}, { clientRequestAction: 'REFRESH' }), ['clientRequestAction']],
    ['a bad keyId', asym({ keyId: 'bad id!' }), ['keyInformation.keyId']],
    ['everything wrong at once', { clientRequestAction: 'DELETE', keyInformation: { pub: expired.pub, status: 'INACTIVE', expiryDuration: '-1' } }, ['clientRequestAction', 'keyInformation.pub', 'keyInformation.status', 'keyInformation.expiryDuration']],
  ])('refuses %s, naming it, and stores nothing', async (_name, body, fields) => {
    const before = await count('webhook_certificates')
    const res = await post(body)
    await expectInvalid(res, fields)
    expect(await count('webhook_certificates')).toBe(before)
  })

  it('says why a pub is refused, never quoting it', async () => {
    for (const [pub, reason] of [
      [good.privateDer, /is a private key/],
      [good.privatePem, /is a private key/],
      [expired.pub, /^expired at \d{4}-/],
      [notYet.pub, /^is not valid before \d{4}-/],
      [weak.pub, /RSA public key of at least 2048 bits/],
      ['AAAA', /base64 of a DER X\.509 certificate/],
    ] as const) {
      const res = await post(asym({ pub }))
      expect(res.json.details).toEqual([{ field: 'keyInformation.pub', reason: expect.stringMatching(reason) }])
      expect(res.text).not.toContain(pub.slice(0, 40))
    }
  })

  it("answers an organization it may not act for exactly as an unknown one, and stores nothing", async () => {
    const before = await count('webhook_certificates')
    const answers = []
    for (const organizationId of ['othermerchant', 'no_such_org']) {
      const res = await post(asym({ organizationId }))
      expect(res.status, res.text).toBe(404)
      answers.push({ reason: res.json.reason, message: res.json.message, details: res.json.details })
    }
    // A merchant may not act for its account either.
    const up = await post(asym({ organizationId: 'testrest_acct' }))
    expect(up.status).toBe(404)
    expect(answers[0]).toEqual({ reason: 'NOT_FOUND', message: 'Not found', details: [{ field: 'keyInformation.organizationId', reason: 'no such organization' }] })
    expect(answers[1]).toEqual(answers[0])
    expect(await count('webhook_certificates')).toBe(before)
  })

  it('refuses a taken keyId (409) and wrong credentials (401), storing nothing more', async () => {
    const body = asym({ keyId: 'mle-cert-1' })
    expect((await post(body)).status).toBe(201)
    const before = await count('webhook_certificates')
    const again = await post(body)
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ reason: 'DUPLICATE_REQUEST', details: [{ field: 'keyInformation.keyId', reason: 'a key with this id exists' }] })
    const wrongSecret = { ...TESTREST_KEY, secret: Buffer.alloc(32, 1).toString('base64') }
    for (const key of [wrongSecret, OTHER_KEY]) {
      const res = await signedCall(t, { method: 'POST', path: '/kms/egress/v2/keys-asym', body: JSON.stringify(asym({})), key, merchantId: 'testrest' })
      expect(res.status).toBe(401)
      expect(res.json).toEqual({ response: { rmsg: 'Authentication Failed' } })
    }
    expect(await count('webhook_certificates')).toBe(before)
  })

  it('reads a PEM CERTIFICATE block as well as the bare base64 body, and stores the same certificate', async () => {
    const res = await post(asym({ pub: good.pem, keyId: 'mle-pem' }))
    expect(res.status, res.text).toBe(201)
    const row = await t.db.kysely.selectFrom('webhook_certificates').selectAll().where('id', '=', 'mle-pem').executeTakeFirstOrThrow()
    expect(row.fingerprint).toBe(good.fingerprint)
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
