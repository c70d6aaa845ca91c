// Webhook URLs that lead to loopback, private, link-local, unique-local or metadata addresses are refused when a
// subscription is created and again when an attempt connects (a name that resolved to a public address at creation
// and to loopback later — DNS rebinding — gets nothing), unless the operator allows the network; production wants https.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LookupAll } from '../../src/platform/outbound-http.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { INVOICE_PAID, startReceiver, subscriptionBody, type Receiver } from '../support/webhooks.js'
import { ALLOWED, REFUSED } from '../support/addresses.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'

const acting = { id: 'testrest', authenticatedId: 'testrest' }
let receiver: Receiver
let answers = 0
/** rebind.example: a public address the first time it is resolved, loopback after. */
const lookup: LookupAll = (host, _options, callback) => {
  if (host === 'rebind.example') return callback(null, [{ address: answers++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }])
  if (host === 'public.example') return callback(null, [{ address: '93.184.216.34', family: 4 }])
  if (host === 'localhost') return callback(null, [{ address: '127.0.0.1', family: 4 }])
  callback(Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' }), [])
}

beforeAll(async () => {
  receiver = await startReceiver()
})
afterAll(() => receiver.close())

async function appWith(env: Record<string, string>): Promise<TestApp> {
  const t = await startTestApp({ clock: new FakeClock(Date.now()), env, webhooks: { lookup, random: () => 0 } })
  await t.app.services.webhooks.keys.save(acting, {})
  return t
}

const createWith = (t: TestApp, webhookUrl: string, over: Record<string, unknown> = {}) => t.app.services.webhooks.subscriptions.create(acting, subscriptionBody(receiver.url, { webhookUrl, ...over }) as never)
const detailsOf = async (p: Promise<unknown>) => ((await p.then(() => ({ details: [] }), (err: { details: unknown }) => err)) as { details: { field: string; reason: string }[] }).details

describe('in the sandbox with no network allowed (WEBHOOK_ALLOWED_NETWORKS=none)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await appWith({ WEBHOOK_ALLOWED_NETWORKS: 'none' })
  })
  afterAll(() => t.close())

  it.each([
    'http://127.0.0.1/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://0x7f.1/hook',
    'http://10.0.0.1/hook',
    'http://192.168.1.20/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/hook',
    'http://[64:ff9b::a00:1]/hook',
    'http://100.64.0.1/hook',
  ])('refuses %s when the subscription is created, and stores nothing', async (url) => {
    const details = await detailsOf(createWith(t, url))
    expect(details).toEqual([{ field: 'webhookUrl', reason: expect.stringContaining('private, loopback, link-local or metadata address') }])
    const healthDetails = await detailsOf(createWith(t, 'http://public.example/hook', { healthCheckUrl: url }))
    expect(healthDetails.map((d) => d.field)).toEqual(['healthCheckUrl'])
    expect(await t.app.services.webhooks.subscriptions.list('testrest', {})).toEqual([])
  })

  it('refuses a host that does not resolve', async () => {
    expect(await detailsOf(createWith(t, 'http://nowhere.example/hook'))).toEqual([{ field: 'webhookUrl', reason: 'its host does not resolve' }])
  })

  it('checks the address again when connecting: a name rebound to loopback after the check gets nothing', async () => {
    const port = new URL(receiver.url).port
    const sub = await createWith(t, `http://rebind.example:${port}/rebound`)
    const { notificationIds } = await t.app.services.webhooks.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
    await t.app.services.jobs.runDue()
    expect(receiver.received.filter((r) => r.url === '/rebound')).toEqual([])
    const attempts = await t.db.kysely.selectFrom('webhook_attempts').selectAll().where('notification_id', '=', notificationIds[0]!).execute()
    expect(attempts).toEqual([expect.objectContaining({ webhook_id: sub.webhookId, result: 'blocked_address', error: expect.stringContaining('rebind.example resolves to 127.0.0.1'), status_code: null })])
    const notification = await t.db.kysely.selectFrom('webhook_notifications').select('status').where('id', '=', notificationIds[0]!).executeTakeFirstOrThrow()
    expect(notification.status).toBe('RETRY')
  })
})

describe('with an allowed network', () => {
  it('delivers to a receiver on it (the sandbox default allows loopback), and to nothing else private', async () => {
    const t = await appWith({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' })
    try {
      await createWith(t, `${receiver.url}/allowed`)
      await t.app.services.webhooks.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
      await t.app.services.jobs.runDue()
      expect(receiver.received.filter((r) => r.url === '/allowed')).toHaveLength(1)
      expect(await detailsOf(createWith(t, 'http://127.0.0.2/hook'))).toEqual([{ field: 'webhookUrl', reason: expect.stringContaining('127.0.0.2') }])
      expect(await detailsOf(createWith(t, 'http://[::1]/hook'))).toEqual([{ field: 'webhookUrl', reason: expect.stringContaining('::1') }])
    } finally {
      await t.close()
    }
  })
})

describe('addresses that embed or translate an IPv4 address, and the deprecated or special IPv6 ranges', () => {
  // As URL hosts: the IPv6 literals of the guard's table, bracketed.
  const host = (address: string) => (address.includes(':') ? `[${address}]` : address)
  const production = { MODE: 'production', SECRETS_KEY: 'a-production-secret-of-at-least-32-characters' }
  describe.each([
    ['in production', production, 'https'],
    ['in the sandbox with private networks refused', { WEBHOOK_ALLOWED_NETWORKS: 'none' }, 'http'],
  ])('%s', (_name, env, scheme) => {
    let t: TestApp
    beforeAll(async () => {
      t = await startTestApp({ clock: new FakeClock(Date.now()), env, webhooks: { lookup } })
      if (env === production) await t.app.services.organizations.create({ id: 'testrest', type: 'merchant' })
      await t.app.services.webhooks.keys.save(acting, {})
    })
    afterAll(() => t.close())

    it.each(REFUSED)('refuses %s (%s) as webhookUrl and as healthCheckUrl', async (address) => {
      const url = `${scheme}://${host(address)}/hook`
      expect(await detailsOf(createWith(t, url))).toEqual([{ field: 'webhookUrl', reason: expect.stringContaining('private, loopback, link-local or metadata address') }])
      expect(await detailsOf(createWith(t, `${scheme}://public.example/hook`, { healthCheckUrl: url }))).toEqual([{ field: 'healthCheckUrl', reason: expect.stringContaining('private, loopback, link-local or metadata address') }])
    })

    it.each(ALLOWED)('accepts %s (%s)', async (address) => {
      const url = `${scheme}://${host(address)}/hook`
      expect((await createWith(t, url, { healthCheckUrl: url })).status).toBe('ACTIVE')
    })
  })
})

describe("through the signed API: the issue's three addresses as webhookUrl and healthCheckUrl, created and updated", () => {
  // Issue 19 item 7's reproducers: IPv4-translated loopback, site-local, and 6to4 embedding 127.0.0.1.
  const ADDRESSES = ['[::ffff:0:127.0.0.1]', '[fec0::1]', '[2002:7f00:1::]']
  const production = { MODE: 'production', SECRETS_KEY: 'a-production-secret-of-at-least-32-characters' }
  describe.each([
    ['in production', production, 'https'],
    ['in the sandbox with private networks refused', { WEBHOOK_ALLOWED_NETWORKS: 'none' }, 'http'],
  ])('%s', (_name, env, scheme) => {
    let t: TestApp
    let key = TESTREST_KEY
    let webhookId: string
    const path = '/notification-subscriptions/v2/webhooks'
    const send = (method: string, to: string, body: unknown) => signedCall(t, { method, path: to, body: JSON.stringify(body), key })
    beforeAll(async () => {
      t = await startTestApp({ clock: new FakeClock(Date.now()), env, webhooks: { lookup } })
      if (env === production) {
        await t.app.services.organizations.create({ id: 'testrest', type: 'merchant' })
        const created = await t.app.services.reportingKeys.create('testrest')
        key = { id: created.key.id, secret: created.secret, org: 'testrest' }
      }
      await t.app.services.webhooks.keys.save(acting, {})
      const res = await send('POST', path, subscriptionBody(`${scheme}://public.example`))
      expect(res.status, res.text).toBe(201)
      webhookId = (res.json as { webhookId: string }).webhookId
    })
    afterAll(() => t.close())

    /** 400 in the reporting error body, naming the field and the address the URL's host is. */
    const expectRefusedUrl = (res: { status: number; text: string; json: unknown }, field: string) => {
      expect(res.status, res.text).toBe(400)
      expect(res.json).toEqual({
        submitTimeUtc: expect.any(String),
        reason: 'INVALID_DATA',
        message: 'One or more fields contains invalid data',
        details: [{ field, reason: expect.stringContaining('a private, loopback, link-local or metadata address') }],
      })
    }

    it.each(ADDRESSES)('refuses %s when a subscription is created and when it is updated, and stores nothing', async (host) => {
      const url = `${scheme}://${host}/hook`
      expectRefusedUrl(await send('POST', path, subscriptionBody(`${scheme}://public.example`, { webhookUrl: url })), 'webhookUrl')
      expectRefusedUrl(await send('POST', path, subscriptionBody(`${scheme}://public.example`, { healthCheckUrl: url })), 'healthCheckUrl')
      expectRefusedUrl(await send('PATCH', `${path}/${webhookId}`, { webhookUrl: url }), 'webhookUrl')
      expectRefusedUrl(await send('PATCH', `${path}/${webhookId}`, { healthCheckUrl: url }), 'healthCheckUrl')
      const list = await signedCall(t, { method: 'GET', path, key })
      expect((list.json as { webhookUrl: string; healthCheckUrl?: string }[]).map((w) => [w.webhookUrl, w.healthCheckUrl])).toEqual([[`${scheme}://public.example/hooks`, undefined]])
    })
  })
})

describe('in production', () => {
  it('wants https, and allows no private network unless told', async () => {
    const t = await startTestApp({ clock: new FakeClock(Date.now()), env: { MODE: 'production', SECRETS_KEY: 'a-production-secret-of-at-least-32-characters' }, webhooks: { lookup } })
    try {
      await t.app.services.organizations.create({ id: 'testrest', type: 'merchant' })
      await t.app.services.webhooks.keys.save(acting, {})
      expect(await detailsOf(createWith(t, 'http://public.example/hook'))).toEqual([{ field: 'webhookUrl', reason: 'must be an https URL' }])
      expect(await detailsOf(createWith(t, 'https://127.0.0.1/hook'))).toEqual([{ field: 'webhookUrl', reason: expect.stringContaining('127.0.0.1') }])
      expect((await createWith(t, 'https://public.example/hook')).status).toBe('ACTIVE')
    } finally {
      await t.close()
    }
  })
})
