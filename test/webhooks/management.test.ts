// The webhook management API through the official SDK (CreateNewWebhooksApi, ManageWebhooksApi), as testrest with
// its own key and as testrest_two with testrest_acct's meta key: products, signing keys, encryption certificates,
// create, list (a bare array), get, update, status, the v1 test call, delete; and tenancy: another organization's webhook answers exactly
// as an unknown one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, cybersource, sdkCall } from '../support/reporting.js'
import { INVOICE_PAID, INVOICE_SEND, countCertificates, createSigningKey, mleCertificate, createSubscription, standardSignatureValid, startReceiver, subscriptionBody, vcSignatureValid, webhookApis, type Receiver } from '../support/webhooks.js'

let t: TestApp
let receiver: Receiver
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

const notFoundBody = (text: string | undefined) => {
  const body = JSON.parse(text ?? '{}')
  return { reason: body.reason, message: body.message, details: body.details }
}

describe.each([
  ['testrest with its own key', 'testrest', TESTREST_KEY],
  ['testrest_two with its account meta key', 'testrest_two', ACCT_KEY],
])('the webhook API as %s', (_name, org, key) => {
  const apis = () => webhookApis(t, org, key)

  it('lists the products and event types it may subscribe to, as a bare array', async () => {
    const res = await sdkCall((cb) => apis().create.findProductsToSubscribe(org, cb))
    expect(res.status).toBe(200)
    expect(res.data.map((p: { productId: string }) => p.productId)).toEqual(['customerInvoicing', 'finapiReporting'])
    const invoicing = res.data[0]
    expect(invoicing.productName).toBe('Invoicing')
    expect(invoicing.eventTypes.map((e: { eventName: string }) => e.eventName)).toEqual([
      'invoicing.customer.invoice.send',
      'invoicing.customer.invoice.cancel',
      'invoicing.customer.invoice.overdue-reminder',
      'invoicing.customer.invoice.paid',
      'invoicing.customer.invoice.partial-payment',
      'invoicing.customer.invoice.reminder',
      'invoicing.customer.invoice.resend',
    ])
    expect(invoicing.eventTypes[0]).toMatchObject({ displayName: 'Invoice sent', timeSensitivity: false, payloadEncryption: false })
    expect(res.data[1].eventTypes.map((e: { eventName: string }) => e.eventName)).toEqual(['reporting.report.completed', 'reporting.report.no-data', 'reporting.report.error'])
    const other = await sdkCall((cb) => apis().create.findProductsToSubscribe('othermerchant', cb))
    expect(other.status).toBe(404)
  })

  it('creates a signing key, shown once, and then a subscription that is ACTIVE with every default explicit', async () => {
    const { keyId, key, result } = await createSigningKey(apis(), org)
    expect(result.status).toBe(201)
    expect(result.data).toMatchObject({ status: 'ACCEPTED', keyInformation: { provider: 'nrtd', tenant: org, organizationId: org, keyType: 'sharedSecret', status: 'ACTIVE' } })
    expect(result.data.submitTimeUtc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(result.data.keyInformation.expirationDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(keyId).toMatch(/^[0-9a-f-]{36}$/)
    expect(Buffer.from(key, 'base64')).toHaveLength(32)

    const created = await createSubscription(apis(), subscriptionBody(receiver.url, { organizationId: org }))
    expect(created.error).toBeNull()
    expect(created.status).toBe(201)
    expect(created.data).toBeInstanceOf(cybersource.InlineResponse2018)
    expect(created.data).toMatchObject({
      organizationId: org,
      status: 'ACTIVE',
      name: 'My receiver',
      description: 'Invoices',
      webhookUrl: `${receiver.url}/hooks`,
      notificationScope: 'DESCENDANTS',
      products: [{ productId: 'customerInvoicing', eventTypes: [INVOICE_SEND, INVOICE_PAID] }],
      retryPolicy: { algorithm: 'ARITHMETIC', firstRetry: 1, interval: 1, numberOfRetries: 3, deactivateFlag: 'false', repeatSequenceCount: 0, repeatSequenceWaitTime: 0 },
      securityPolicy: { securityType: 'key' },
    })
    const raw = JSON.parse(JSON.stringify(created.data))
    for (const member of ['status', 'notificationScope']) expect(Object.hasOwn(raw, member), member).toBe(true)
    expect(created.data.createdOn).toBe(t.clock.now().toISOString())
    const id = created.data.webhookId as string

    const got = await sdkCall((cb) => apis().manage.getWebhookSubscriptionById(id, cb))
    expect(got.status).toBe(200)
    expect(got.data).toEqual(created.data)

    const listed = await sdkCall((cb) => apis().manage.getWebhookSubscriptionsByOrg(org, {}, cb))
    expect(listed.status).toBe(200)
    expect(listed.data.map((w: { webhookId: string }) => w.webhookId)).toContain(id)
    expect((await sdkCall((cb) => apis().manage.getWebhookSubscriptionsByOrg(org, { productId: 'finapiReporting' }, cb))).data).toEqual([])
    expect((await sdkCall((cb) => apis().manage.getWebhookSubscriptionsByOrg(org, { eventType: INVOICE_PAID }, cb))).data.map((w: { webhookId: string }) => w.webhookId)).toContain(id)

    const patched = await sdkCall((cb) => apis().manage.notificationSubscriptionsV2WebhooksWebhookIdPatch(id, { updateWebhook: { name: 'Renamed', notificationScope: 'SELF', products: [{ productId: 'customerInvoicing', eventTypes: [INVOICE_PAID] }] } }, cb))
    expect(patched.status).toBe(200)
    expect(patched.data).toBeInstanceOf(cybersource.InlineResponse2008)
    expect(patched.data).toMatchObject({ webhookId: id, name: 'Renamed', notificationScope: 'SELF', description: 'Invoices', status: 'ACTIVE', products: [{ productId: 'customerInvoicing', eventTypes: [INVOICE_PAID] }] })
    expect(patched.data.updatedOn).toBe(t.clock.now().toISOString())

    const statusOf = async () => (await sdkCall((cb) => apis().manage.getWebhookSubscriptionById(id, cb))).data.status
    const put = (status?: string) => {
      const body = new cybersource.UpdateStatus()
      if (status) body.status = status
      return sdkCall((cb) => apis().manage.notificationSubscriptionsV2WebhooksWebhookIdStatusPut(id, { updateStatus: body }, cb))
    }
    expect((await put('INACTIVE')).status).toBe(200)
    expect(await statusOf()).toBe('INACTIVE')
    expect((await put('ACTIVE')).status).toBe(200)
    expect(await statusOf()).toBe('ACTIVE')
    // The model's unset status goes out as {}: it means the model's default, INACTIVE.
    expect((await put()).status).toBe(200)
    expect(await statusOf()).toBe('INACTIVE')
    expect((await put('ACTIVE')).status).toBe(200)

    const deleted = await sdkCall((cb) => apis().manage.deleteWebhookSubscription(id, cb))
    expect(deleted.status).toBe(200)
    const gone = await sdkCall((cb) => apis().manage.getWebhookSubscriptionById(id, cb))
    expect(gone.status).toBe(404)
    const patchGone = await sdkCall((cb) => apis().manage.notificationSubscriptionsV2WebhooksWebhookIdPatch(id, { updateWebhook: { name: 'x' } }, cb))
    expect(patchGone.status).toBe(404)
    expect(notFoundBody(patchGone.error?.response?.text)).toEqual({ reason: 'NOT_FOUND', message: 'Not found', details: [{ field: 'webhookId', reason: 'no such webhook subscription' }] })
    expect((await put('ACTIVE')).status).toBe(404)
  })

  it('stores a message-level encryption certificate (keys-asym), answering only that it was accepted', async () => {
    const cert = mleCertificate({ notAfter: new Date(t.clock.now().getTime() + 30 * 86_400_000) })
    const keyId = `mle-${org}`
    const body = {
      clientReferenceInformation: { code: 'ref-42' },
      clientRequestAction: 'store',
      keyInformation: { provider: 'nrtd', tenant: org, keyType: 'Asymmetric', organizationId: org, pub: cert.pub, keyId, pvt: cert.privateDer, status: 'ACTIVE', expiryDuration: '365' },
    }
    const res = await sdkCall((cb) => apis().manage.saveAsymEgressKey(body, { vCCorrelationId: 'corr-1' }, cb))
    expect(res.error).toBeNull()
    expect(res.status).toBe(201)
    expect(res.data).toBeInstanceOf(cybersource.InlineResponse20110)
    expect(JSON.parse(JSON.stringify(res.data))).toEqual({ submitTimeUtc: t.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'), status: 'ACCEPTED' })
    const row = await t.db.kysely.selectFrom('webhook_certificates').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ organization_id: org, provider: 'nrtd', tenant: org, key_type: 'asymmetric', client_reference_code: 'ref-42', fingerprint: cert.fingerprint, status: 'ACTIVE', created_at: t.clock.now().toISOString() })
    expect(row.certificate.replace(/\r?\n/g, '')).toBe(cert.pem.replace(/\r?\n/g, ''))
    // Kept until the certificate's own end, 30 days away, not the 365 days asked for.
    expect(row.not_after).toBe(new Date(Math.floor((t.clock.now().getTime() + 30 * 86_400_000) / 1000) * 1000).toISOString())
    expect(row.expires_at).toBe(row.not_after)
    // The private key sent with it is nowhere: not in the row, not in the answer.
    expect(JSON.stringify(row)).not.toContain(cert.privateDer.slice(0, 40))

    const short = mleCertificate()
    const defaults = await sdkCall((cb) => apis().manage.saveAsymEgressKey({ keyInformation: { pub: short.pub, expiryDuration: '10' } }, {}, cb))
    expect(defaults.status).toBe(201)
    const stored = await t.db.kysely.selectFrom('webhook_certificates').selectAll().where('fingerprint', '=', short.fingerprint).executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ organization_id: org, provider: 'nrtd', tenant: org, key_type: 'asymmetric', client_reference_code: null, expires_at: new Date(t.clock.now().getTime() + 10 * 86_400_000).toISOString() })
    expect(stored.id).toMatch(/^[0-9a-f-]{36}$/)

    const before = await countCertificates(t)
    const theirs = await sdkCall((cb) => apis().manage.saveAsymEgressKey({ keyInformation: { pub: short.pub, organizationId: 'othermerchant' } }, {}, cb))
    expect(theirs.status).toBe(404)
    expect(notFoundBody(theirs.error?.response?.text)).toEqual({ reason: 'NOT_FOUND', message: 'Not found', details: [{ field: 'keyInformation.organizationId', reason: 'no such organization' }] })
    expect(await countCertificates(t)).toBe(before)
  })

  it('sends a test notification (v1), signed with the key like any notification', async () => {
    t.clock.advance(1) // the newest key signs: this one, created a millisecond after the others
    const { keyId, key } = await createSigningKey(apis(), org)
    const created = await createSubscription(apis(), subscriptionBody(receiver.url, { organizationId: org }))
    const id = created.data.webhookId as string
    const before = receiver.received.length
    const res = await sdkCall((cb) => apis().manage.notificationSubscriptionsV1WebhooksWebhookIdPost(id, cb))
    expect(res.status).toBe(201)
    expect(res.data).toBeInstanceOf(cybersource.InlineResponse2019)
    expect(res.data).toMatchObject({ eventType: 'webhook.test', organizationId: org, productId: 'customerInvoicing', requestType: 'NEW', retryNumber: 0, webhookId: id })
    expect(res.data.payloads.testPayload.message).toMatch(/test notification/)
    const got = receiver.received[before]!
    expect(got.headers['v-c-transaction-trace-id']).toBe(res.data.transactionTraceId)
    expect(got.headers['v-c-webhook-id']).toBe(id)
    expect(String(got.headers['v-c-signature'])).toContain(`keyId=${keyId};`)
    expect(vcSignatureValid(got, { [keyId]: key })).toBe(true)
    expect(standardSignatureValid(got, key)).toBe(true)
    expect(JSON.parse(got.body)).toMatchObject({ eventType: 'webhook.test', retryNumber: 0, webhookId: id, payloads: [{ data: { message: res.data.payloads.testPayload.message }, organizationId: org }] })
  })
})

describe('tenancy', () => {
  it("answers another tenant's webhook exactly as an unknown one, on every call", async () => {
    const mine = webhookApis(t, 'testrest', TESTREST_KEY)
    await createSigningKey(mine, 'testrest')
    const id = (await createSubscription(mine, subscriptionBody(receiver.url))).data.webhookId as string
    const theirs = webhookApis(t, 'othermerchant', OTHER_KEY)
    const sibling = webhookApis(t, 'testrest_two', ACCT_KEY)
    for (const apis of [theirs, sibling]) {
      for (const webhookId of [id, 'no-such-webhook']) {
        const calls = [
          sdkCall((cb) => apis.manage.getWebhookSubscriptionById(webhookId, cb)),
          sdkCall((cb) => apis.manage.notificationSubscriptionsV2WebhooksWebhookIdPatch(webhookId, { updateWebhook: { name: 'mine now' } }, cb)),
          sdkCall((cb) => apis.manage.notificationSubscriptionsV2WebhooksWebhookIdStatusPut(webhookId, { updateStatus: { status: 'INACTIVE' } }, cb)),
          sdkCall((cb) => apis.manage.notificationSubscriptionsV1WebhooksWebhookIdPost(webhookId, cb)),
          sdkCall((cb) => apis.manage.deleteWebhookSubscription(webhookId, cb)),
        ]
        for (const res of await Promise.all(calls)) {
          expect(res.status).toBe(404)
          expect(notFoundBody(res.error?.response?.text)).toEqual({ reason: 'NOT_FOUND', message: 'Not found', details: [{ field: 'webhookId', reason: 'no such webhook subscription' }] })
        }
      }
    }
    const still = await sdkCall((cb) => mine.manage.getWebhookSubscriptionById(id, cb))
    expect(still.data).toMatchObject({ name: 'My receiver', status: 'ACTIVE' })
    const list = await sdkCall((cb) => theirs.manage.getWebhookSubscriptionsByOrg('testrest', {}, cb))
    expect(list.status).toBe(404)
    expect((await sdkCall((cb) => theirs.manage.getWebhookSubscriptionsByOrg('othermerchant', {}, cb))).data).toEqual([])
  })

  it("lets the account manage its merchant's webhook, and the merchant not its account's", async () => {
    const account = webhookApis(t, 'testrest_acct', ACCT_KEY)
    const merchant = webhookApis(t, 'testrest', TESTREST_KEY)
    await createSigningKey(merchant, 'testrest')
    const forMerchant = (await createSubscription(merchant, subscriptionBody(receiver.url))).data.webhookId as string
    expect((await sdkCall((cb) => account.manage.getWebhookSubscriptionById(forMerchant, cb))).status).toBe(200)
    await createSigningKey(account, 'testrest_acct')
    const forAccount = (await createSubscription(account, subscriptionBody(receiver.url))).data.webhookId as string
    expect((await sdkCall((cb) => merchant.manage.getWebhookSubscriptionById(forAccount, cb))).status).toBe(404)
  })
})
