// Retries on the fake clock, exactly as each subscription's policy says (jitter off): arithmetic, geometric and
// repeated sequences, a receiver that fails and then succeeds, Retry-After, 410, timeouts, suspension until the
// health check answers 200, and replays. Each case has an organization of its own, so no case hears another's events.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { signedCall } from '../support/reporting.js'
import { INVOICE_PAID, startReceiver, subscriptionBody, vcSignatureValid, type Answer, type Received, type Receiver } from '../support/webhooks.js'

const MIN = 60_000
let t: TestApp
let receiver: Receiver
/** Answers by path: each case scripts its own receiver path. */
const scripts = new Map<string, (n: number, r: Received) => Answer>()

beforeAll(async () => {
  // A whole second: Retry-After dates have no milliseconds.
  t = await startTestApp({ clock: new FakeClock(Math.floor(Date.now() / 1000) * 1000), webhooks: { random: () => 0 }, env: { OUTBOUND_TIMEOUT_MS: '400' } })
  receiver = await startReceiver(() => t.clock.now().getTime())
  receiver.answer = (r) => {
    const script = scripts.get(r.url.split('?')[0]!)
    const n = receiver.received.filter((x) => x.url === r.url).length - 1
    return script ? script(n, r) : { status: 200 }
  }
})
afterAll(async () => {
  await receiver.close()
  await t.close()
})

async function subscriber(policy: Record<string, unknown>, script: (n: number, r: Received) => Answer, over: Record<string, unknown> = {}) {
  const wh = t.app.services.webhooks
  const org = `m${randomBytes(4).toString('hex')}`
  await t.app.services.organizations.create({ id: org, type: 'merchant' })
  const acting = { id: org, authenticatedId: org }
  const saved = await wh.keys.save(acting, {})
  const path = `/${org}`
  scripts.set(path, script)
  const sub = await wh.subscriptions.create(acting, subscriptionBody(receiver.url, { webhookUrl: `${receiver.url}${path}`, retryPolicy: policy, ...over }) as never)
  const signing = await t.app.services.reportingKeys.create(org)
  return {
    org,
    /** A signed call as the organization (its own reporting key). */
    call: (method: string, url: string, body?: unknown) => signedCall(t, { method, path: url, body: body === undefined ? undefined : JSON.stringify(body), key: { id: signing.key.id, secret: signing.secret, org } }),
    acting,
    webhookId: sub.webhookId,
    keys: { [saved.keyInformation.keyId]: saved.keyInformation.key },
    publish: () => wh.events.publish({ eventType: INVOICE_PAID, organizationId: org, data: {} }),
    arrivals: () => receiver.received.filter((r) => r.url === path),
    status: async () => (await wh.subscriptions.get(acting, sub.webhookId)).status,
  }
}

/** Runs what is due now; then moves the clock through `gaps`, checking nothing is sent a millisecond early. */
async function expectSchedule(arrivals: () => Received[], gaps: number[]) {
  const started = t.clock.now().getTime()
  await t.app.services.jobs.runDue()
  expect(arrivals()).toHaveLength(1)
  let at = started
  for (const [i, gap] of gaps.entries()) {
    t.clock.advance(gap - 1)
    await t.app.services.jobs.runDue()
    expect(arrivals(), `retry ${i + 1} is not sent a millisecond early`).toHaveLength(i + 1)
    t.clock.advance(1)
    await t.app.services.jobs.runDue()
    expect(arrivals(), `retry ${i + 1}`).toHaveLength(i + 2)
    at += gap
    expect(arrivals()[i + 1]!.at).toBe(at)
  }
  t.clock.advance(365 * 24 * 60 * MIN)
  await t.app.services.jobs.runDue()
  expect(arrivals(), 'nothing after the last retry').toHaveLength(gaps.length + 1)
}

const failing = () => ({ status: 500, body: 'down' })

describe('the retry schedule', () => {
  it('arithmetic: firstRetry, then interval after interval; every retry a new trace id under one notificationId', async () => {
    const s = await subscriber({ algorithm: 'ARITHMETIC', firstRetry: 2, interval: 3, numberOfRetries: 3 }, failing)
    const { notificationIds } = await s.publish()
    await expectSchedule(s.arrivals, [2 * MIN, 3 * MIN, 3 * MIN])
    const got = s.arrivals()
    expect(got.map((r) => r.headers['v-c-request-type'])).toEqual(['NEW', 'RETRY', 'RETRY', 'RETRY'])
    expect(got.map((r) => r.headers['v-c-retry-count'])).toEqual(['0', '1', '2', '3'])
    expect(got.map((r) => JSON.parse(r.body).retryNumber)).toEqual([0, 1, 2, 3])
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(notificationIds))
    expect(new Set(got.map((r) => JSON.parse(r.body).notificationId))).toEqual(new Set(notificationIds))
    expect(new Set(got.map((r) => r.headers['v-c-transaction-trace-id'])).size).toBe(4)
    expect(got.every((r) => vcSignatureValid(r, s.keys))).toBe(true)
    const log = await s.call('GET', `/webhooks/v1/notifications/${notificationIds[0]}`)
    expect(log.json).toMatchObject({ status: 'FAILED', attempts: 4 })
    expect(log.json.deliveries.map((d: { retryNumber: number; statusCode: number; result: string; responseExcerpt: string }) => [d.retryNumber, d.statusCode, d.result, d.responseExcerpt])).toEqual([0, 1, 2, 3].map((n) => [n, 500, 'http_error', 'down']))
  })

  it('geometric: firstRetry × interval^(n-1) after the first failure', async () => {
    const s = await subscriber({ algorithm: 'GEOMETRIC', firstRetry: 1, interval: 3, numberOfRetries: 3 }, failing)
    await s.publish()
    // Due 1, 3 and 9 minutes after the first failure.
    await expectSchedule(s.arrivals, [1 * MIN, 2 * MIN, 6 * MIN])
  })

  it('repeats the whole sequence after repeatSequenceWaitTime', async () => {
    const s = await subscriber({ firstRetry: 1, interval: 2, numberOfRetries: 2, repeatSequenceCount: 2, repeatSequenceWaitTime: 10 }, failing)
    await s.publish()
    await expectSchedule(s.arrivals, [1, 2, 11, 2, 11, 2].map((m) => m * MIN))
  })

  it('stops at the first 2xx: a receiver that fails twice, then succeeds', async () => {
    const s = await subscriber({ firstRetry: 1, interval: 1, numberOfRetries: 5 }, (n) => (n < 2 ? { status: 502 } : { status: 204 }))
    const { notificationIds } = await s.publish()
    await expectSchedule(s.arrivals, [MIN, MIN])
    const row = await t.db.kysely.selectFrom('webhook_notifications').selectAll().where('id', '=', notificationIds[0]!).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 3 })
  })

  it("waits for a 429's or a 503's Retry-After when it is longer than the policy's gap", async () => {
    const when = () => new Date(t.clock.now().getTime() + 7 * MIN).toUTCString()
    const s = await subscriber({ firstRetry: 1, interval: 1, numberOfRetries: 3 }, (n) =>
      n === 0 ? { status: 429, headers: { 'retry-after': '300' } } : n === 1 ? { status: 503, headers: { 'retry-after': when() } } : n === 2 ? { status: 503, headers: { 'retry-after': '5' } } : { status: 200 },
    )
    await s.publish()
    await expectSchedule(s.arrivals, [5 * MIN, 7 * MIN, MIN])
  })

  it('retries an attempt that gets no answer in time', async () => {
    const s = await subscriber({ firstRetry: 1, interval: 1, numberOfRetries: 1 }, (n) => (n === 0 ? { hang: true } : { status: 200 }))
    const { notificationIds } = await s.publish()
    await expectSchedule(s.arrivals, [MIN])
    const attempts = await t.db.kysely.selectFrom('webhook_attempts').selectAll().where('notification_id', '=', notificationIds[0]!).orderBy('retry_number').execute()
    expect(attempts.map((a) => a.result)).toEqual(['timeout', 'delivered'])
  })
})

describe('the subscription answers for its receiver', () => {
  it('410 Gone fails the notification and deactivates the subscription; later events are kept and can be replayed', async () => {
    const s = await subscriber({ firstRetry: 1, numberOfRetries: 3 }, (n) => (n === 0 ? { status: 410 } : { status: 200 }))
    await s.publish()
    await t.app.services.jobs.runDue()
    expect(await s.status()).toBe('INACTIVE')
    t.clock.advance(10 * MIN)
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(1)
    const held = await s.publish()
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(1)
    expect((await t.db.kysely.selectFrom('webhook_notifications').select('status').where('id', '=', held.notificationIds[0]!).executeTakeFirstOrThrow()).status).toBe('HELD')
    await t.app.services.webhooks.subscriptions.setStatus(s.acting, s.webhookId, { status: 'ACTIVE' })
    const replayed = await s.call('POST', `/webhooks/${s.webhookId}/replays`, { byDeliveryStatus: { status: 'HELD', hoursBack: 1 } })
    expect(replayed.status).toBe(202)
    expect(replayed.json).toMatchObject({ status: 'ACCEPTED', replayedNotifications: 1 })
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(2)
    expect(JSON.parse(s.arrivals()[1]!.body).notificationId).toBe(held.notificationIds[0])
  })

  it('deactivateFlag "true": exhausted retries suspend the subscription and hold new events until the health check answers 200', async () => {
    let healthy = false
    const s = await subscriber({ firstRetry: 1, numberOfRetries: 1, deactivateFlag: 'true' }, (n, r) => (r.url.endsWith('/health') ? { status: healthy ? 200 : 503 } : n < 2 ? { status: 500 } : { status: 200 }), {})
    await t.app.services.webhooks.subscriptions.update(s.acting, s.webhookId, { healthCheckUrl: `${receiver.url}/${s.org}/health` })
    scripts.set(`/${s.org}/health`, () => ({ status: healthy ? 200 : 503 }))
    const first = await s.publish()
    await t.app.services.jobs.runDue()
    t.clock.advance(MIN)
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(2)
    expect(await s.status()).toBe('SUSPENDED')
    const second = await s.publish()
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(2)
    const health = () => receiver.received.filter((r) => r.url === `/${s.org}/health`)
    t.clock.advance(MIN)
    await t.app.services.jobs.runDue()
    expect(health()).toHaveLength(1)
    expect(health()[0]).toMatchObject({ method: 'POST', body: '' })
    expect(await s.status()).toBe('SUSPENDED')
    healthy = true
    t.clock.advance(MIN)
    await t.app.services.jobs.runDue()
    expect(health()).toHaveLength(2)
    expect(await s.status()).toBe('ACTIVE')
    const sent = s.arrivals().slice(2).map((r) => JSON.parse(r.body).notificationId).sort()
    expect(sent).toEqual([...first.notificationIds, ...second.notificationIds].sort())
    expect(s.arrivals().slice(2).find((r) => JSON.parse(r.body).notificationId === first.notificationIds[0])!.headers['v-c-request-type']).toBe('RETRY')
  })

  it('replays by trace ids and by a time window, once each, under the same notificationId', async () => {
    const s = await subscriber({ firstRetry: 1, numberOfRetries: 0 }, (n) => (n === 0 ? { status: 500 } : { status: 200 }))
    const { notificationIds } = await s.publish()
    await t.app.services.jobs.runDue()
    const traceId = String(s.arrivals()[0]!.headers['v-c-transaction-trace-id'])
    const replay = async (path: string, body: unknown) => (await s.call('POST', path, body)).json.replayedNotifications
    const from = new Date(t.clock.now().getTime() - MIN).toISOString()
    const to = new Date(t.clock.now().getTime() + MIN).toISOString()
    expect(await replay(`/webhooks/${s.webhookId}/replays`, { byDeliveryStatus: { status: 'FAILED', startTime: from, endTime: to } })).toBe(1)
    await t.app.services.jobs.runDue()
    expect(s.arrivals()).toHaveLength(2)
    expect(await replay(`/nrtf/v1/webhooks/${s.webhookId}/replays`, { byTransactionTraceIdentifiers: [traceId] })).toBe(1)
    await t.app.services.jobs.runDue()
    const got = s.arrivals()
    expect(got).toHaveLength(3)
    expect(got.map((r) => JSON.parse(r.body).notificationId)).toEqual([notificationIds[0], notificationIds[0], notificationIds[0]])
    expect(got.map((r) => r.headers['v-c-request-type'])).toEqual(['NEW', 'RETRY', 'RETRY'])
    expect(new Set(got.map((r) => r.headers['v-c-transaction-trace-id'])).size).toBe(3)
    expect(await replay(`/webhooks/${s.webhookId}/replays`, { byDeliveryStatus: { status: 'FAILED', hoursBack: 24 } })).toBe(0)
  })
})
