// The operator's commands, run as the real `finapi` (the compiled build): events published from a file or standard
// input, all or nothing; subscriptions; and the delivery log with a notification's every attempt, as tables or JSON.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepareDatabase } from '../../src/bootstrap.js'
import { loadConfig } from '../../src/config.js'
import { systemClock } from '../../src/platform/clock.js'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { createLogger } from '../../src/platform/logger.js'
import { createServices, type Services } from '../../src/services.js'
import { runFinapi } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { INVOICE_PAID, INVOICE_SEND, startReceiver, subscriptionBody, type Receiver } from '../support/webhooks.js'

let database: TestDatabase
let db: Db
let services: Services
let receiver: Receiver
const dir = mkdtempSync(join(tmpdir(), 'finapi-events-'))
const run = (args: string[], input?: string) => runFinapi(args, { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { input })
const count = async () => Number((await db.kysely.selectFrom('webhook_events').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)

beforeAll(async () => {
  database = await createTestDatabase()
  const config = loadConfig({ MODE: 'sandbox', DATABASE_URL: database.url })
  db = openDatabase(config.databaseUrl)
  const infrastructure = { db, clock: systemClock, logger: createLogger('silent') }
  services = createServices(config, infrastructure)
  await prepareDatabase(config, infrastructure, services)
  await services.webhooks.keys.save({ id: 'testrest', authenticatedId: 'testrest' }, {})
  receiver = await startReceiver()
  // Each notification is refused once, then accepted.
  const seen = new Set<string>()
  receiver.answer = (r) => {
    const id = String(r.headers['webhook-id'])
    if (seen.has(id)) return { status: 200, body: 'thanks' }
    seen.add(id)
    return { status: 503, body: 'busy' }
  }
  await services.webhooks.subscriptions.create({ id: 'testrest', authenticatedId: 'testrest' }, subscriptionBody(receiver.url, { retryPolicy: { firstRetry: 0 } }) as never)
}, 120_000)
afterAll(async () => {
  await receiver.close()
  await db.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('finapi events publish', () => {
  it('publishes every event of an NDJSON or JSON file, and nothing when one of them is wrong', async () => {
    const ndjson = join(dir, 'events.ndjson')
    writeFileSync(ndjson, [{ eventType: INVOICE_SEND, organizationId: 'testrest', data: { invoiceNumber: '1' } }, { eventType: INVOICE_PAID, organizationId: 'testrest', data: { invoiceNumber: '1' } }].map((e) => JSON.stringify(e)).join('\n') + '\n')
    const published = await run(['events', 'publish', ndjson])
    expect(published.code, published.stderr).toBe(0)
    expect(published.stdout).toContain('Published 2 events: 2 notifications')
    expect(await count()).toBe(2)

    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify([{ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} }, { eventType: INVOICE_PAID, organizationId: 'testrest', data: { amount: 12 } }]))
    const refused = await run(['events', 'publish', bad])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('event 2: data.amount: must be a string')
    expect(await count()).toBe(2)
    expect((await run(['events', 'publish', join(dir, 'missing.json')])).stderr).toContain('cannot read')
  })

  it('reads the events from standard input with -', async () => {
    const before = await count()
    const piped = await run(['events', 'publish', '-'], JSON.stringify({ eventType: INVOICE_SEND, organizationId: 'testrest', data: { invoiceNumber: '2' } }))
    expect(piped.stderr).toBe('')
    expect(piped.stdout).toContain('Published 1 events: 1 notifications')
    expect(await count()).toBe(before + 1)
    const refused = await run(['events', 'publish', '-'], '{"eventType": ')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe('finapi: line 1 is not JSON\n')
    expect(await count()).toBe(before + 1)
  })
})

describe('finapi webhooks deliveries', () => {
  it('lists notifications and shows one notification’s attempts', async () => {
    const { notificationIds } = await services.webhooks.events.publish({ eventType: INVOICE_PAID, organizationId: 'testrest', data: {} })
    await services.jobs.runDue()
    await services.jobs.runDue() // the retry, due at once (firstRetry 0)
    const listed = await run(['webhooks', 'deliveries', '--status', 'delivered'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`^${notificationIds[0]}\\t\\S+\\ttestrest\\t${INVOICE_PAID}\\tDELIVERED\\t2\\t`, 'm'))
    const detail = await run(['webhooks', 'deliveries', '--notification', notificationIds[0]!])
    expect(detail.stdout).toContain('DELIVERED after 2 attempt(s)')
    expect(detail.stdout).toMatch(/\t0\tNEW\t\S+\t\d+\t503\thttp_error\tthe receiver answered 503\t"busy"/)
    expect(detail.stdout).toMatch(/\t1\tRETRY\t\S+\t\d+\t200\tdelivered\t-\t"thanks"/)
    const lost = await run(['webhooks', 'deliveries', '--status', 'lost'])
    expect(lost.code).toBe(2)
    expect(lost.stderr).toContain("finapi: error: option '--status <status>' argument 'lost' is invalid. It must be one of PENDING, RETRY")

    // The same as JSON: an array of the rows, and one notification with its attempts.
    const json = JSON.parse((await run(['webhooks', 'deliveries', '--status', 'delivered', '--json'])).stdout) as { notificationId: string; status: string; attempts: number }[]
    expect(json.find((n) => n.notificationId === notificationIds[0])).toMatchObject({ status: 'DELIVERED', attempts: 2 })
    const one = JSON.parse((await run(['webhooks', 'deliveries', '--notification', notificationIds[0]!, '--json'])).stdout) as { deliveries: { statusCode: number }[] }
    expect(one.deliveries.map((d) => d.statusCode)).toEqual([503, 200])
  })
})

describe('finapi webhooks list', () => {
  it("lists an organization's subscriptions as a table or as JSON", async () => {
    const json = JSON.parse((await run(['webhooks', 'list', '--org', 'testrest', '--json'])).stdout) as { webhookId: string; webhookUrl: string; organizationId: string }[]
    expect(json).toEqual([expect.objectContaining({ organizationId: 'testrest', webhookUrl: expect.stringContaining(receiver.url) })])
    const table = await run(['webhooks', 'list', '--org', 'testrest'])
    expect(table.code, table.stderr).toBe(0)
    const [header, ...rows] = table.stdout.trimEnd().split('\n')
    expect(header).toBe('webhook\tname\tstatus\turl\tevent types\tcreated')
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatch(new RegExp(`^${json[0]!.webhookId}\\t.*\\tACTIVE\\t${json[0]!.webhookUrl}\\t${INVOICE_SEND} ${INVOICE_PAID}\\t`))
    expect(JSON.parse((await run(['webhooks', 'list', '--org', 'othermerchant', '--json'])).stdout)).toEqual([])
  })
})
