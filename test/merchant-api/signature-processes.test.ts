// A signed write is accepted once across server processes (issue 19, item 4): two real `finapi serve` processes on
// one database (PostgreSQL, or one SQLite file) receive the same HTTP-Signature-signed write many times at once, and
// exactly one call gets through: one event published, one subscription written. The signature is spent by one
// statement on a unique key (platform/replay-guard.ts), never by a read followed by a write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'
import { TESTREST_KEY, signedHeaders } from '../support/reporting.js'

const N = 20
let database: TestDatabase
let db: Db
let servers: RunningServer[] = []
beforeAll(async () => {
  database = await createTestDatabase()
  const env = { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' }
  servers = await startFinapiServers(2, env)
  db = openDatabase(database.url)
}, 60_000)
afterAll(async () => {
  await db.close()
  await stopFinapiServers(servers)
  await database.drop()
})

/** The same signed request (the servers read the real clock, as the SDK does) sent N times at once, half to each. */
async function race(method: string, path: string, body?: string) {
  const headers = { ...signedHeaders({ method, path, body, key: TESTREST_KEY }), 'x-svc-key': undefined }
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => call(servers[i % 2]!.baseUrl, '', method, path, { headers, body })))
  return answers.map((a) => a.status).sort()
}

const events = async () => Number((await db.kysely.selectFrom('webhook_events').select((eb) => eb.fn.countAll<string>().as('n')).where('organization_id', '=', 'testrest').executeTakeFirstOrThrow()).n)

describe('a signed write across processes', () => {
  it('is accepted exactly once when both processes receive it many times at once', async () => {
    const before = await events()
    expect(await race('POST', '/webhooks/v1/events', JSON.stringify({ eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: 'raced' } }))).toEqual([201, ...Array<number>(N - 1).fill(401)])
    expect(await events()).toBe(before + 1)

    const body = JSON.stringify({ reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Raced', reportFields: ['VERes.Enrolled'], timezone: 'GMT' })
    expect(await race('PUT', '/reporting/v3/report-subscriptions', body)).toEqual([200, ...Array<number>(N - 1).fill(401)])
  })

  it('while a signed read is answered every time', async () => {
    expect(await race('GET', '/reporting/v3/report-subscriptions')).toEqual(Array<number>(N).fill(200))
  })
})
