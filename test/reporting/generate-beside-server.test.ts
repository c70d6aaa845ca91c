// `finapi transactions generate` against the database a running server uses: on SQLite the two processes share one
// write lock, and a generator that held it for seconds made the server answer 500 (SQLITE_BUSY), a sign-in take
// seconds, and the job poller log "database is locked". While a generator writes 120,000 rows, the server keeps
// answering sign-ins and signed event publications without a 5xx, every accepted event is stored, and the
// generator's rows are all there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CUSTOMER_1, loginBody } from '../support/banking.js'
import { call } from '../support/harness.js'
import { runFinapi, startFinapiServer, type RunningServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { TESTREST_KEY, signedHeaders } from '../support/reporting.js'
import { openDatabase } from '../../src/platform/db/database.js'

let database: TestDatabase
let server: RunningServer
const env = () => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' })

beforeAll(async () => {
  database = await createTestDatabase()
  server = await startFinapiServer(env())
})
afterAll(async () => {
  server?.child.kill('SIGTERM')
  await server?.exited
  await database?.drop()
})

describe('a generator beside a running server', () => {
  it('leaves the server answering without a 5xx and loses nothing', async () => {
    const generating = runFinapi(['transactions', 'generate', '--org', 'othermerchant', '--days', '40', '--per-day', '3000', '--seed', 'beside', '--end', '2020-02-09'], env())
    let finished = false
    void generating.then(() => (finished = true))
    const statuses: number[] = []
    let published = 0
    for (let i = 0; !finished || i < 20; i++) {
      const login = await call(server.baseUrl, 'sandbox-key-finapi', 'POST', '/v2/auth?v=1', { body: loginBody(CUSTOMER_1) })
      const body = JSON.stringify({ eventType: 'invoicing.customer.invoice.send', data: { invoiceNumber: String(i) } })
      const event = await call(server.baseUrl, 'sandbox-key-finapi', 'POST', '/sandbox/v1/events', { headers: signedHeaders({ method: 'POST', path: '/sandbox/v1/events', body, key: TESTREST_KEY, host: new URL(server.baseUrl).host }), body })
      statuses.push(login.status, event.status)
      if (event.status < 300) published++
    }
    const run = await generating
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(statuses.filter((s) => s >= 300)).toEqual([])
    expect(server.output()).not.toMatch(/database is locked|SQLITE_BUSY/)
    const db = openDatabase(database.url)
    try {
      const rows = await db.kysely.selectFrom('transactions').where('organization_id', '=', 'othermerchant').where('request_time', '<', '2020-02-10').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()
      expect(Number(rows.n)).toBe(120_000)
      const events = await db.kysely.selectFrom('webhook_events').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()
      expect(Number(events.n)).toBeGreaterThanOrEqual(published)
    } finally {
      await db.close()
    }
  }, 240_000)
})
