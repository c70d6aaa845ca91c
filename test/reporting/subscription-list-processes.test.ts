// The subscription list each server keeps (issue 20, target 1: rendered once while no subscription changes) follows
// every change made anywhere: through the other server, through the same one, and by SQL from outside finapi. Two
// real `finapi serve` processes on one database (platform/db/changes.ts: SQLite's data_version; on PostgreSQL the
// trigger of migration 0030, inserts included, heard on a connection of each server's own). The memory's own bound
// (LIST_MEMORY_MS) is a minute, so a list current within the second can only come from the change signal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LIST_MEMORY_MS } from '../../src/reporting/report-subscriptions/service.js'
import { startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, outsideSql, TEST_DIALECT, type TestDatabase } from '../support/database.js'
import { signedOn } from '../support/reporting.js'

const onSqlite = TEST_DIALECT === 'sqlite'
const PATH = '/reporting/v3/report-subscriptions'

let database: TestDatabase
let servers: RunningServer[] = []
beforeAll(async () => {
  database = await createTestDatabase()
  servers = await startFinapiServers(2, { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' })
}, 60_000)
afterAll(async () => {
  await stopFinapiServers(servers)
  await database.drop()
})

const subscription = (reportName: string) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportFields: ['Request.RequestID', 'Request.TransactionDate'],
  reportMimeType: 'text/csv',
  reportFrequency: 'DAILY',
  reportName,
  timezone: 'GMT',
  startTime: '0900',
})

async function names(server: RunningServer): Promise<string[]> {
  const res = await signedOn(server, 'GET', PATH)
  expect(res.status, res.text).toBe(200)
  return (res.json as { subscriptions: { reportName: string }[] }).subscriptions.map((s) => s.reportName)
}

/** Every server's list after a change has returned: the first answer must show it on SQLite, within 1 s on PostgreSQL. */
async function expectEverywhere(check: (list: string[]) => boolean): Promise<void> {
  for (const server of servers) {
    const start = performance.now()
    let list = await names(server)
    if (onSqlite) expect(check(list), list.join(', ')).toBe(true)
    while (!check(list) && performance.now() - start < 2_000) list = await names(server)
    expect(check(list), list.join(', ')).toBe(true)
    expect(performance.now() - start).toBeLessThan(1_000)
  }
}

describe('the subscription list each server keeps', () => {
  it('shows a subscription created, changed or deleted through either server, or by SQL, on both at once', async () => {
    expect(LIST_MEMORY_MS).toBeGreaterThanOrEqual(60_000)
    // Read (and so kept) on both before each change.
    for (const server of servers) expect(await names(server)).not.toContain('through one')
    expect((await signedOn(servers[0]!, 'PUT', PATH, subscription('through one'))).status).toBe(200)
    await expectEverywhere((list) => list.includes('through one'))

    expect((await signedOn(servers[1]!, 'PUT', PATH, subscription('through two'))).status).toBe(200)
    await expectEverywhere((list) => list.includes('through one') && list.includes('through two'))

    // A change to one: the list's content, not only its names, follows.
    expect((await signedOn(servers[0]!, 'PUT', PATH, { ...subscription('through two'), reportMimeType: 'application/xml' })).status).toBe(200)
    for (const server of servers) {
      const start = performance.now()
      const mime = async () => ((await signedOn(server, 'GET', PATH)).json as { subscriptions: { reportName: string; reportMimeType: string }[] }).subscriptions.find((s) => s.reportName === 'through two')?.reportMimeType
      let seen = await mime()
      while (seen !== 'application/xml' && !onSqlite && performance.now() - start < 1_000) seen = await mime()
      expect(seen).toBe('application/xml')
    }

    expect((await signedOn(servers[1]!, 'DELETE', `${PATH}/through+one`)).status).toBe(200)
    await expectEverywhere((list) => !list.includes('through one') && list.includes('through two'))

    // Another connection than either server's, inserting (a new row belongs in the list too) and deleting.
    const now = new Date().toISOString()
    const row = ['testrest', 'by sql', 'CUSTOM', 'ACTIVE', 'TransactionRequestClass', 'text/csv', 'DAILY', 'GMT', '0900', '["Request.RequestID"]', '{}', '{"signedAmounts":true,"fieldNameConvention":"SOAPI"}', now, now]
    const columns = 'organization_id, report_name, subscription_type, subscription_status, report_definition_name, report_mime_type, report_frequency, timezone, start_time, report_fields, report_filters, report_preferences, created_at, updated_at'
    await outsideSql(database, `INSERT INTO report_subscriptions (${columns}) VALUES (${row.map(() => '?').join(', ')})`, `INSERT INTO report_subscriptions (${columns}) VALUES (${row.map((_, i) => `$${i + 1}`).join(', ')})`, row)
    await expectEverywhere((list) => list.includes('by sql'))
    await outsideSql(database, `DELETE FROM report_subscriptions WHERE report_name = ?`, `DELETE FROM report_subscriptions WHERE report_name = $1`, ['by sql'])
    await expectEverywhere((list) => !list.includes('by sql') && list.includes('through two'))
  })
})
