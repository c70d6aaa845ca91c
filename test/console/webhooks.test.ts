// The console's webhook pages through HTTP, as a browser without JavaScript uses them, checked against the signed API
// and a local receiver: a signing key's secret shown once; a subscription created, refused with the service's reasons,
// edited, deactivated and activated; a test send written as a notification and delivered by the jobs facility; the
// delivery log with every attempt, its filters and keyset pages; replay of one notification and of a filtered set;
// a revoked key signing nothing more; and another merchant's subscription, notification and key not found.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ConsoleBrowser } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'
import { INVOICE_PAID, INVOICE_SEND, startReceiver, subscriptionBody, vcSignatureValid, type Receiver } from '../support/webhooks.js'

let t: TestApp
let b: ConsoleBrowser
let receiver: Receiver
let webhookId: string
let keyId: string
let secret: string
const other = { id: 'othermerchant', authenticatedId: 'othermerchant' }

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')), webhooks: { random: () => 0 } })
  receiver = await startReceiver()
  receiver.answer = () => ({ status: 200, body: 'thanks from the test receiver' })
  b = new ConsoleBrowser(t)
  await b.signIn()
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

const api = (method: string, path: string, body?: unknown) => signedCall(t, { method, path, key: TESTREST_KEY, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
const form = (over: Record<string, string | string[]> = {}) => ({
  name: 'console receiver',
  description: 'from the console',
  webhookUrl: `${receiver.url}/console`,
  healthCheckUrl: '',
  events: [`customerInvoicing|${INVOICE_SEND}`, `customerInvoicing|${INVOICE_PAID}`],
  notificationScope: 'SELF',
  algorithm: 'ARITHMETIC',
  firstRetry: '1',
  interval: '1',
  numberOfRetries: '2',
  keyId: '',
  ...over,
})
const runJobs = () => t.app.services.jobs.runDue()

it('creates a signing key and shows its secret once, on the answer to the form only', async () => {
  expect((await b.get('/console/webhooks/new')).text).toContain('no signing key yet')
  const res = await b.submit('/console/webhooks/keys', '/console/webhooks/keys', { expiryDuration: '30', reference: 'console-test' })
  expect(res.status).toBe(200)
  expect(res.text).toContain('it is not shown again')
  keyId = /Key id<\/dt><dd><code>([^<]+)</.exec(res.text)![1]!
  secret = /<code id="secret">([^<]+)</.exec(res.text)![1]!
  expect(Buffer.from(secret, 'base64')).toHaveLength(32)
  const list = await b.get('/console/webhooks/keys')
  expect(list.text).toContain(keyId)
  expect(list.text).toContain('console-test')
  expect(list.text).not.toContain(secret)
  const refused = await b.submit('/console/webhooks/keys', '/console/webhooks/keys', { expiryDuration: '9999', reference: '' })
  expect(refused.status).toBe(400)
  expect(refused.text).toContain('keyInformation.expiryDuration')
})

it('refuses a subscription form with the service’s reasons, and saves nothing', async () => {
  const res = await b.submit('/console/webhooks/new', '/console/webhooks', form({ webhookUrl: 'ftp://example.com/hook', events: [] }))
  expect(res.status).toBe(400)
  expect(res.text).toContain('webhookUrl: must be an http or https URL')
  expect(res.text).toContain('products: must name at least one product')
  expect(res.text).toContain('value="console receiver"')
  expect((await api('GET', '/notification-subscriptions/v2/webhooks?organizationId=testrest')).json).toEqual([])
})

it('creates and edits a subscription, as the API then answers', async () => {
  const created = await b.submit('/console/webhooks/new', '/console/webhooks', form())
  expect(created.status, created.text.slice(0, 400)).toBe(303)
  const [hook] = (await api('GET', '/notification-subscriptions/v2/webhooks?organizationId=testrest')).json
  webhookId = hook.webhookId
  expect(hook).toMatchObject({ name: 'console receiver', status: 'ACTIVE', notificationScope: 'SELF', webhookUrl: `${receiver.url}/console`, retryPolicy: { numberOfRetries: 2 } })
  expect(hook.products).toEqual([{ productId: 'customerInvoicing', eventTypes: [INVOICE_SEND, INVOICE_PAID] }])
  expect((await b.get('/console/webhooks')).text).toContain(`/console/webhooks/${webhookId}`)
  const edited = await b.submit(`/console/webhooks/${webhookId}`, `/console/webhooks/${webhookId}`, form({ name: 'renamed receiver', description: '', keyId, events: [`customerInvoicing|${INVOICE_SEND}`] }))
  expect(edited.status).toBe(303)
  const after = (await api('GET', `/notification-subscriptions/v2/webhooks/${webhookId}`)).json
  expect(after).toMatchObject({ name: 'renamed receiver', securityPolicy: { config: { additionalConfig: { keyId } } } })
  expect(after.description).toBeUndefined()
  expect(after.products).toEqual([{ productId: 'customerInvoicing', eventTypes: [INVOICE_SEND] }])
})

it('sends a test as a notification the jobs facility delivers, and shows its attempt', async () => {
  const res = await b.submit(`/console/webhooks/${webhookId}`, `/console/webhooks/${webhookId}/test`, {})
  expect(res.status).toBe(303)
  const detail = String(res.headers.location)
  expect(detail).toMatch(/^\/console\/webhooks\/deliveries\/[0-9a-f-]{36}$/)
  // A row with its delivery job before its attempt (which the job may already have made: the form wakes the jobs).
  const notificationId = detail.split('/').pop()!
  const jobs = await t.db.kysely.selectFrom('jobs').select(['kind', 'payload']).where('kind', '=', 'webhooks.deliver').execute()
  expect(jobs.filter((j) => String(j.payload).includes(notificationId))).toHaveLength(1)
  expect((await b.get(detail)).text).toMatch(/PENDING|DELIVERED/)
  await runJobs()
  await receiver.waitFor(1)
  expect(receiver.received).toHaveLength(1)
  expect(vcSignatureValid(receiver.received[0]!, { [keyId]: secret })).toBe(true)
  expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ eventType: 'webhook.test' })
  const page = (await b.get(detail)).text
  expect(page).toContain('DELIVERED')
  expect(page).toMatch(/<td>200<\/td>/)
  expect(page).toContain('thanks from the test receiver')
  const log = (await b.get('/console/webhooks/deliveries')).text
  expect(log).toContain('HTTP 200')
  expect(log).toContain('thanks from the test receiver')
})

it('replays one notification: a second attempt', async () => {
  const log = (await b.get('/console/webhooks/deliveries?eventType=webhook.test')).text
  const detail = /href="(\/console\/webhooks\/deliveries\/[0-9a-f-]{36})"/.exec(log)![1]!
  expect((await b.submit(detail, `${detail}/replay`, {})).status).toBe(303)
  await runJobs()
  expect(receiver.received).toHaveLength(2)
  expect(receiver.received[1]!.headers['v-c-request-type']).toBe('RETRY')
  expect((await b.get(detail)).text).toContain('2 attempts')
})

it('filters the log by status, event type and time', async () => {
  expect((await b.get('/console/webhooks/deliveries?status=DELIVERED')).text).toContain('webhook.test')
  expect((await b.get('/console/webhooks/deliveries?status=FAILED')).text).toContain('No notifications')
  expect((await b.get(`/console/webhooks/deliveries?eventType=${INVOICE_SEND}`)).text).toContain('No notifications')
  expect((await b.get('/console/webhooks/deliveries?from=2026-02-01&to=2026-02-02')).text).toContain('webhook.test')
  expect((await b.get('/console/webhooks/deliveries?from=2026-02-02')).text).toContain('No notifications')
  const bad = await b.get('/console/webhooks/deliveries?from=yesterday&status=NOPE')
  expect(bad.status).toBe(400)
  expect(bad.text).toContain('role="alert"')
  expect(bad.text).toContain('From must be a date, YYYY-MM-DD.')
})

it('holds what arrives while inactive, and replays the held set once active again', async () => {
  const deactivate = await b.submit(`/console/webhooks/${webhookId}`, `/console/webhooks/${webhookId}/status`, { status: 'INACTIVE' })
  expect(deactivate.status).toBe(303)
  expect((await api('GET', `/notification-subscriptions/v2/webhooks/${webhookId}`)).json.status).toBe('INACTIVE')
  expect((await api('POST', '/webhooks/v1/events', { eventType: INVOICE_SEND, data: { invoiceNumber: '1' } })).status).toBe(201)
  await runJobs()
  expect(receiver.received).toHaveLength(2)
  expect((await b.get('/console/webhooks/deliveries?status=HELD')).text).toContain(INVOICE_SEND)
  const refused = await b.submit('/console/webhooks/replays', '/console/webhooks/replays', { webhookId, status: 'DELIVERED', hoursBack: '1' })
  expect(refused.status).toBe(400)
  expect(refused.text).toContain('byDeliveryStatus.status: must be FAILED, RETRY or HELD')
  expect((await b.submit(`/console/webhooks/${webhookId}`, `/console/webhooks/${webhookId}/status`, { status: 'ACTIVE' })).status).toBe(303)
  const replayed = await b.submit('/console/webhooks/replays', '/console/webhooks/replays', { webhookId, status: 'HELD', hoursBack: '1' })
  expect(replayed.status).toBe(303)
  expect(replayed.headers.location).toBe(`/console/webhooks/deliveries?webhookId=${webhookId}&replayed=1`)
  await runJobs()
  expect(receiver.received).toHaveLength(3)
  expect(JSON.parse(receiver.received[2]!.body)).toMatchObject({ eventType: INVOICE_SEND })
})

it('pages the log by keyset: every notification once, newest first', async () => {
  const acting = { id: 'testrest', authenticatedId: 'testrest' }
  // The fake clock stands still: thirty notifications created at the same instant, ordered by id within it.
  for (let i = 0; i < 30; i++) await t.app.services.webhooks.subscriptions.queueTest(acting, webhookId, 'test')
  const ids = (text: string) => [...text.matchAll(/href="\/console\/webhooks\/deliveries\/([0-9a-f-]{36})"/g)].map((m) => m[1]!)
  const first = await b.get('/console/webhooks/deliveries?eventType=webhook.test')
  expect(ids(first.text)).toHaveLength(25)
  const older = /href="([^"]+)">Older notifications/.exec(first.text)![1]!.replaceAll('&amp;', '&')
  const second = await b.get(older)
  expect(second.text).not.toContain('Older notifications')
  const all = [...ids(first.text), ...ids(second.text)]
  expect(all).toHaveLength(31)
  expect(new Set(all).size).toBe(31)
})

it('revokes a key: it signs nothing more', async () => {
  expect((await b.submit('/console/webhooks/keys', `/console/webhooks/keys/${keyId}/revoke`, {})).status).toBe(303)
  expect((await b.get('/console/webhooks/keys')).text).toMatch(new RegExp(`${keyId}</code></td><td>REVOKED`))
  const sent = receiver.received.length
  const res = await b.submit(`/console/webhooks/${webhookId}`, `/console/webhooks/${webhookId}/test`, {})
  await runJobs()
  expect(receiver.received.length).toBe(sent)
  expect((await b.get(String(res.headers.location))).text).toContain('no_key')
})

it('answers another merchant’s subscription, notification and key as unknown ones (404)', async () => {
  const wh = t.app.services.webhooks
  const theirKey = (await wh.keys.save(other, {})).keyInformation.keyId
  const theirs = (await wh.subscriptions.create(other, subscriptionBody(receiver.url) as never)).webhookId
  const theirNotification = await wh.subscriptions.queueTest(other, theirs, 'test')
  for (const path of [`/console/webhooks/${theirs}`, `/console/webhooks/deliveries/${theirNotification}`, `/console/webhooks/deliveries?webhookId=${theirs}`]) {
    expect((await b.get(path)).status, path).toBe(404)
  }
  for (const [path, body] of [
    [`/console/webhooks/${theirs}/status`, { status: 'INACTIVE' }],
    [`/console/webhooks/${theirs}/test`, {}],
    [`/console/webhooks/deliveries/${theirNotification}/replay`, {}],
    [`/console/webhooks/keys/${theirKey}/revoke`, {}],
    ['/console/webhooks/replays', { webhookId: theirs, status: 'HELD', hoursBack: '1' }],
  ] as const) {
    expect((await b.submit('/console/webhooks', path, body)).status, path).toBe(404)
  }
  expect((await wh.keys.list('othermerchant'))[0]!.status).toBe('ACTIVE')
  expect((await wh.subscriptions.get(other, theirs)).status).toBe('ACTIVE')
})
