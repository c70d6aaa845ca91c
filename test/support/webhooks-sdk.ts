// Every webhook operation of the official SDK (CreateNewWebhooksApi, ManageWebhooksApi), in one pass, under whatever
// merchant configuration (authentication type) a test gives: what each reporting scheme's test runs.
import { expect } from 'vitest'
import type { TestApp } from './harness.js'
import { cybersource, sdkCall } from './reporting.js'
import { INVOICE_PAID, countCertificates, mleCertificate, subscriptionBody, vcSignatureValid, type Receiver } from './webhooks.js'

/** The subscriber's message-level encryption certificate every tour stores (one more row each time). */
const certificate = mleCertificate()

export async function webhookTour(o: { t: Pick<TestApp, 'db'>; config: object; acting: string; receiver: Receiver }): Promise<void> {
  const create = new cybersource.CreateNewWebhooksApi(o.config, new cybersource.ApiClient())
  const manage = new cybersource.ManageWebhooksApi(o.config, new cybersource.ApiClient())

  const products = await sdkCall((cb) => create.findProductsToSubscribe(o.acting, cb))
  expect(products.error, 'findProductsToSubscribe').toBeNull()
  expect(products.data.map((p: { productId: string }) => p.productId)).toEqual(['customerInvoicing', 'finapiReporting'])
  const key = await sdkCall((cb) => create.saveSymEgressKey({ saveSymEgressKey: { clientRequestAction: 'CREATE', keyInformation: { organizationId: o.acting } } }, cb))
  expect(key.error, 'saveSymEgressKey').toBeNull()
  expect(key.data.keyInformation.organizationId).toBe(o.acting)
  const keys = { [key.data.keyInformation.keyId as string]: key.data.keyInformation.key as string }
  const storedBefore = await countCertificates(o.t, { organizationId: o.acting, fingerprint: certificate.fingerprint })
  const asym = await sdkCall((cb) => manage.saveAsymEgressKey({ keyInformation: { pub: certificate.pub, organizationId: o.acting } }, {}, cb))
  expect(asym.error, 'saveAsymEgressKey').toBeNull()
  expect(asym.status).toBe(201)
  expect(asym.data).toBeInstanceOf(cybersource.InlineResponse20110)
  expect(asym.data.status).toBe('ACCEPTED')
  expect(asym.data.submitTimeUtc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  expect(await countCertificates(o.t, { organizationId: o.acting, fingerprint: certificate.fingerprint })).toBe(storedBefore + 1)

  const created = await sdkCall((cb) => create.notificationSubscriptionsV2WebhooksPost({ createWebhook: subscriptionBody(o.receiver.url, { organizationId: o.acting, securityPolicy: { securityType: 'key', config: { additionalConfig: { keyId: Object.keys(keys)[0] } } } }) }, cb))
  expect(created.error, 'notificationSubscriptionsV2WebhooksPost').toBeNull()
  expect(created.data).toMatchObject({ organizationId: o.acting, status: 'ACTIVE' })
  const id = created.data.webhookId as string
  const listed = await sdkCall((cb) => manage.getWebhookSubscriptionsByOrg(o.acting, { eventType: INVOICE_PAID }, cb))
  expect(listed.error, 'getWebhookSubscriptionsByOrg').toBeNull()
  expect(listed.data.map((w: { webhookId: string }) => w.webhookId)).toContain(id)
  expect((await sdkCall((cb) => manage.getWebhookSubscriptionById(id, cb))).data.webhookId, 'getWebhookSubscriptionById').toBe(id)
  const patched = await sdkCall((cb) => manage.notificationSubscriptionsV2WebhooksWebhookIdPatch(id, { updateWebhook: { description: 'patched' } }, cb))
  expect(patched.error, 'notificationSubscriptionsV2WebhooksWebhookIdPatch').toBeNull()
  expect(patched.data.description).toBe('patched')
  const status = await sdkCall((cb) => manage.notificationSubscriptionsV2WebhooksWebhookIdStatusPut(id, { updateStatus: { status: 'ACTIVE' } }, cb))
  expect(status.error, 'notificationSubscriptionsV2WebhooksWebhookIdStatusPut').toBeNull()

  const before = o.receiver.received.length
  const tested = await sdkCall((cb) => manage.notificationSubscriptionsV1WebhooksWebhookIdPost(id, cb))
  expect(tested.error, 'notificationSubscriptionsV1WebhooksWebhookIdPost').toBeNull()
  expect(tested.data).toMatchObject({ webhookId: id, organizationId: o.acting, eventType: 'webhook.test', requestType: 'NEW' })
  const got = o.receiver.received[before]!
  expect(got.headers['v-c-transaction-trace-id']).toBe(tested.data.transactionTraceId)
  expect(vcSignatureValid(got, keys)).toBe(true)

  expect((await sdkCall((cb) => manage.deleteWebhookSubscription(id, cb))).error, 'deleteWebhookSubscription').toBeNull()
  expect((await sdkCall((cb) => manage.getWebhookSubscriptionById(id, cb))).status, 'gone').toBe(404)
}
