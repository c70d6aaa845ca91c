// Events published (the ingestion call, the sandbox trigger, the report engine's publish in its own transaction)
// reach the subscriptions that hear them — own organization, and DESCENDANTS above it — as signed POSTs with every
// header of the spec and of Standard Webhooks, checked here with an independent HMAC and with the exported verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyVcSignature } from '../../src/webhooks/verifier.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'
import { INVOICE_PAID, INVOICE_SEND, standardSignatureValid, startReceiver, subscriptionBody, vcSignatureValid, type Receiver } from '../support/webhooks.js'

let t: TestApp
let receiver: Receiver
const keys: Record<string, string> = {}
const hooks: Record<string, string> = {}
const acting = (org: string) => ({ id: org, authenticatedId: org })

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()), webhooks: { random: () => 0 } })
  receiver = await startReceiver()
  const wh = t.app.services.webhooks
  for (const org of ['testrest', 'testrest_acct', 'othermerchant']) {
    const saved = await wh.keys.save(acting(org), {})
    keys[saved.keyInformation.keyId] = saved.keyInformation.key
  }
  const subscribe = async (name: string, org: string, over: Record<string, unknown> = {}) => {
    hooks[name] = (await wh.subscriptions.create(acting(org), subscriptionBody(receiver.url, { webhookUrl: `${receiver.url}/${name}`, ...over }) as never)).webhookId
  }
  await subscribe('merchant', 'testrest')
  await subscribe('account-descendants', 'testrest_acct')
  await subscribe('account-self', 'testrest_acct', { notificationScope: 'SELF' })
  await subscribe('other', 'othermerchant')
  await subscribe('merchant-reports', 'testrest', { products: [{ productId: 'finapiReporting', eventTypes: ['reporting.report.completed'] }] })
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

const deliveredTo = (from: number) => receiver.received.slice(from).map((r) => r.url.slice(1)).sort()

describe('delivery', () => {
  it("sends an event to its organization's subscriptions and to DESCENDANTS ones above it, with every header and both signatures", async () => {
    const from = receiver.received.length
    const data = { invoiceNumber: '10042', payerName: 'Jane Doe', currency: 'USD', invoiceBalance: '0.00' }
    const res = await signedCall(t, { method: 'POST', path: '/webhooks/v1/events', body: JSON.stringify({ eventType: INVOICE_PAID, data }), key: TESTREST_KEY })
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({ eventType: INVOICE_PAID, organizationId: 'testrest', productId: 'customerInvoicing' })
    expect(res.json.notificationIds).toHaveLength(2)
    await t.app.services.jobs.runDue()
    expect(deliveredTo(from)).toEqual(['account-descendants', 'merchant'])

    for (const got of receiver.received.slice(from)) {
      const body = JSON.parse(got.body)
      const webhookId = got.url === '/merchant' ? hooks['merchant'] : hooks['account-descendants']
      const subscriber = got.url === '/merchant' ? 'testrest' : 'testrest_acct'
      expect(got.method).toBe('POST')
      expect(got.headers['content-type']).toBe('application/json')
      expect(got.headers).toMatchObject({
        'v-c-event-type': INVOICE_PAID,
        'v-c-organization-id': subscriber,
        'v-c-product-name': 'customerInvoicing',
        'v-c-request-type': 'NEW',
        'v-c-retry-count': '0',
        'v-c-webhook-id': webhookId,
        'webhook-id': body.notificationId,
      })
      expect(res.json.notificationIds).toContain(body.notificationId)
      expect(got.headers['v-c-transaction-trace-id']).toMatch(/^[0-9a-f-]{36}$/)
      expect(body).toEqual({
        notificationId: expect.any(String),
        retryNumber: 0,
        eventType: INVOICE_PAID,
        eventDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
        webhookId,
        organizationId: subscriber,
        productId: 'customerInvoicing',
        transactionTraceId: got.headers['v-c-transaction-trace-id'],
        requestType: 'NEW',
        payloads: [{ data, organizationId: 'testrest' }],
      })
      const t0 = Number(/t=(\d+);/.exec(String(got.headers['v-c-signature']))![1])
      expect(t0).toBe(t.clock.now().getTime())
      expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(t0 / 1000)))
      expect(vcSignatureValid(got, keys)).toBe(true)
      const keyId = /keyId=([^;]+)/.exec(String(got.headers['v-c-signature']))![1]!
      expect(standardSignatureValid(got, keys[keyId]!)).toBe(true)
      expect(verifyVcSignature({ header: got.headers['v-c-signature'], body: got.body, keys, now: t0 })).toEqual({ ok: true, keyId, timestamp: t0 })
      expect(verifyVcSignature({ header: got.headers['v-c-signature'], body: got.body.replace('10042', '10043'), keys, now: t0 })).toEqual({ ok: false, reason: 'bad_signature' })
    }
    // Another organization's key signs its own notifications only.
    const otherKeyId = Object.keys(keys)[2]!
    expect(receiver.received.slice(from).some((r) => String(r.headers['v-c-signature']).includes(otherKeyId))).toBe(false)
  })

  it("lets the account publish for a merchant below it, and no one for another tenant's organization", async () => {
    const from = receiver.received.length
    const body = JSON.stringify({ eventType: INVOICE_SEND, organizationId: 'testrest', data: { invoiceNumber: '1' } })
    expect((await signedCall(t, { method: 'POST', path: '/webhooks/v1/events', body, key: ACCT_KEY })).status).toBe(201)
    const refused = await signedCall(t, { method: 'POST', path: '/webhooks/v1/events', body, key: OTHER_KEY })
    expect(refused.status).toBe(404)
    expect(refused.json.details).toEqual([{ field: 'organizationId', reason: 'no such organization' }])
    await t.app.services.jobs.runDue()
    expect(deliveredTo(from)).toEqual(['account-descendants', 'merchant'])
  })

  it('fires a sandbox event with realistic sample data, the caller’s data overriding it', async () => {
    const from = receiver.received.length
    const res = await signedCall(t, { method: 'POST', path: '/sandbox/v1/events', body: JSON.stringify({ eventType: INVOICE_SEND, data: { payerName: 'Ada Lovelace' } }), key: TESTREST_KEY })
    expect(res.status).toBe(201)
    await t.app.services.jobs.runDue()
    const got = receiver.received.slice(from).find((r) => r.url === '/merchant')!
    const payload = JSON.parse(got.body).payloads[0]
    expect(Object.keys(payload.data).sort()).toEqual(
      ['merchantZip', 'thankYou', 'subject', 'dueDate', 'link', 'body', 'merchantState', 'merchantName', 'button', 'invoiceBalance', 'merchantAddress2', 'invoiceNumber', 'payerName', 'customMessage', 'currency', 'merchantCity', 'emailTo', 'eventType', 'balanceAmount', 'organizationID', 'merchantPhone', 'emailLanguage', 'invoiceUrl', 'merchantAddress', 'correlationID', 'hello'].sort(),
    )
    expect(Object.values(payload.data).every((v) => typeof v === 'string')).toBe(true)
    expect(payload.data).toMatchObject({ payerName: 'Ada Lovelace', eventType: INVOICE_SEND, organizationID: 'testrest' })
    expect(payload.preferences.contacts[0]).toMatchObject({ type: 'EMAIL' })
    expect(payload.metadata).toMatchObject({ from: { displayName: expect.any(String) }, reply: { email: expect.any(String) }, sentBy: expect.any(String) })
    expect(payload.organizationId).toBe('testrest')
    expect(res.json.payload).toEqual(payload)
  })

  it("writes a report engine's event in the engine's own transaction: nothing when it rolls back, delivered when it commits", async () => {
    const from = receiver.received.length
    const { events } = t.app.services.webhooks
    const report = { eventType: 'reporting.report.completed', organizationId: 'testrest', data: { reportId: 'r-1', reportStatus: 'COMPLETED' }, source: 'report-engine' }
    await expect(
      t.db.kysely.transaction().execute(async (trx) => {
        await events.publish(report, trx)
        throw new Error('the report could not be stored')
      }),
    ).rejects.toThrow('could not be stored')
    await t.app.services.jobs.runDue()
    expect(deliveredTo(from)).toEqual([])
    const published = await t.db.kysely.transaction().execute((trx) => events.publish(report, trx))
    expect(published.notificationIds).toHaveLength(1)
    events.wake()
    await receiver.waitFor(from + 1)
    expect(deliveredTo(from)).toEqual(['merchant-reports'])
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ eventType: 'reporting.report.completed', productId: 'finapiReporting', payloads: [{ data: report.data }] })
  })

  it('signs with the newest key once there are several, and the older one still verifies what it signed', async () => {
    const wh = t.app.services.webhooks
    t.clock.advance(1)
    const newer = await wh.keys.save(acting('testrest'), {})
    keys[newer.keyInformation.keyId] = newer.keyInformation.key
    const from = receiver.received.length
    await wh.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
    await t.app.services.jobs.runDue()
    const got = receiver.received.slice(from).find((r) => r.url === '/merchant')!
    expect(String(got.headers['v-c-signature'])).toContain(`keyId=${newer.keyInformation.keyId};`)
    expect(vcSignatureValid(got, { [newer.keyInformation.keyId]: newer.keyInformation.key })).toBe(true)
  })

  it('keeps the delivery log: every attempt with its status, duration and the first bytes of the answer', async () => {
    receiver.answer = () => ({ status: 200, body: `accepted ${'x'.repeat(400)}` })
    const { notificationIds } = await t.app.services.webhooks.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
    await t.app.services.jobs.runDue()
    receiver.answer = () => ({ status: 200, body: 'ok' })
    const mine = notificationIds[0]!
    const detail = await signedCall(t, { method: 'GET', path: `/webhooks/v1/notifications/${mine}`, key: TESTREST_KEY })
    expect(detail.status).toBe(200)
    expect(detail.json).toMatchObject({ notificationId: mine, status: 'DELIVERED', attempts: 1, eventType: INVOICE_PAID })
    expect(detail.json.deliveries).toHaveLength(1)
    expect(detail.json.deliveries[0]).toMatchObject({ retryNumber: 0, requestType: 'NEW', statusCode: 200, result: 'delivered', durationMs: expect.any(Number) })
    expect(detail.json.deliveries[0].responseExcerpt).toHaveLength(256)
    const list = await signedCall(t, { method: 'GET', path: `/webhooks/v1/notifications?webhookId=${hooks['merchant']}&limit=2`, key: TESTREST_KEY })
    expect(list.json, list.text).toHaveProperty("notifications")
    expect(list.json.notifications).toHaveLength(2)
    expect(list.json.notifications.every((n: { webhookId: string }) => n.webhookId === hooks['merchant'])).toBe(true)
    const foreign = await signedCall(t, { method: 'GET', path: `/webhooks/v1/notifications/${mine}`, key: OTHER_KEY })
    expect(foreign.status).toBe(404)
  })

  it("keeps an answer's NUL bytes out of the log as U+FFFD (PostgreSQL's text cannot hold one)", async () => {
    receiver.answer = () => ({ status: 200, body: 'ok\u0000then' })
    const { notificationIds } = await t.app.services.webhooks.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
    await t.app.services.jobs.runDue()
    receiver.answer = () => ({ status: 200, body: 'ok' })
    const detail = await signedCall(t, { method: 'GET', path: `/webhooks/v1/notifications/${notificationIds[0]!}`, key: TESTREST_KEY })
    expect(detail.json).toMatchObject({ status: 'DELIVERED', attempts: 1 })
    expect(detail.json.deliveries[0].responseExcerpt).toBe('ok\ufffdthen')
  })

  it('tells a subscriber of the report engine’s reports: a one-time report that completes is a reporting.report.completed notification', async () => {
    const from = receiver.received.length
    const oneTime = { reportDefinitionName: 'TransactionRequestClass', reportName: 'Webhook_Report', reportFields: ['Request.RequestID'], timezone: 'GMT', reportStartTime: new Date(t.clock.now().getTime() - 2 * 86_400_000).toISOString(), reportEndTime: new Date(t.clock.now().getTime() - 86_400_000).toISOString() }
    const { reportId } = await t.app.services.reporting.reports.createOneTime('testrest', oneTime)
    await t.app.services.jobs.runDue()
    await t.app.services.jobs.runDue()
    const got = receiver.received.slice(from).filter((r) => r.url === '/merchant-reports')
    expect(got).toHaveLength(1)
    expect(got[0]!.headers).toMatchObject({ 'v-c-event-type': 'reporting.report.completed', 'v-c-product-name': 'finapiReporting' })
    expect(JSON.parse(got[0]!.body).payloads[0].data).toMatchObject({ reportId, reportName: 'Webhook_Report', status: 'COMPLETED', organizationId: 'testrest', run: 1 })
    expect(vcSignatureValid(got[0]!, keys)).toBe(true)
  })
})
