// A report's details and a search's results each server keeps (issue 20, target 1: read once while no report
// changes) follow every change made anywhere: a report made through either server, changed or deleted by SQL from
// outside finapi. Two real `finapi serve` processes on one database (platform/db/changes.ts: SQLite's data_version;
// on PostgreSQL the trigger of migration 0032, inserts included; a server's own writes told as they commit,
// platform/db/announced-writes.ts). The memory's own bound (REPORT_MEMORY_MS) is a minute, so an answer current
// within the second can only come from the change signal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPORT_MEMORY_MS } from '../../src/reporting/reports/service.js'
import { startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, outsideSql, TEST_DIALECT, type TestDatabase } from '../support/database.js'
import { signedOn } from '../support/reporting.js'

const onSqlite = TEST_DIALECT === 'sqlite'
const SEARCH = '/reporting/v3/reports?startTime=2026-01-01T00:00:00Z&endTime=2026-02-01T00:00:00Z&timeQueryType=reportTimeFrame'

let database: TestDatabase
let servers: RunningServer[] = []
beforeAll(async () => {
  database = await createTestDatabase()
  // No job runs (JOBS_POLL_MS=0): a queued report stays QUEUED until this test changes it.
  servers = await startFinapiServers(2, { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' })
}, 60_000)
afterAll(async () => {
  await stopFinapiServers(servers)
  await database.drop()
})

const oneTime = (reportName: string) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportFields: ['Request.RequestID', 'Request.TransactionDate'],
  reportMimeType: 'text/csv',
  reportName,
  timezone: 'GMT',
  reportStartTime: '2026-01-10T00:00:00Z',
  reportEndTime: '2026-01-11T00:00:00Z',
})

async function create(server: RunningServer, name: string): Promise<string> {
  const res = await signedOn(server, 'POST', '/reporting/v3/reports', oneTime(name))
  expect(res.status, res.text).toBe(201)
  return String(res.headers['location']).split('/').pop()!
}

/** The report's status as the server answers it, or 404. */
async function status(server: RunningServer, id: string): Promise<string | number> {
  const res = await signedOn(server, 'GET', `/reporting/v3/reports/${id}`)
  if (res.status === 404) return 404
  expect(res.status, res.text).toBe(200)
  return (res.json as { reportStatus: string }).reportStatus
}

/** The names the search finds (none: 404). */
async function found(server: RunningServer): Promise<string[]> {
  const res = await signedOn(server, 'GET', SEARCH)
  if (res.status === 404) return []
  expect(res.status, res.text).toBe(200)
  return (res.json as { reportSearchResults: { reportName: string; status: string }[] }).reportSearchResults.map((r) => `${r.reportName} ${r.status}`).sort()
}

/** Every server's answer after a change has returned: the first must show it on SQLite, within 1 s on PostgreSQL. */
async function expectEverywhere<T>(read: (server: RunningServer) => Promise<T>, expected: T): Promise<void> {
  for (const server of servers) {
    const start = performance.now()
    let seen = await read(server)
    if (onSqlite) expect(seen).toEqual(expected)
    while (JSON.stringify(seen) !== JSON.stringify(expected) && performance.now() - start < 2_000) seen = await read(server)
    expect(seen).toEqual(expected)
    expect(performance.now() - start).toBeLessThan(1_000)
  }
}

describe("the reports' details and searches each server keeps", () => {
  it('show a report made through either server, or changed or deleted by SQL, on both at once', async () => {
    expect(REPORT_MEMORY_MS).toBeGreaterThanOrEqual(60_000)
    // Read (and so kept where there is something to keep) on both before each change.
    for (const server of servers) expect(await found(server)).toEqual([])
    const first = await create(servers[0]!, 'through one')
    await expectEverywhere(found, ['through one QUEUED'])
    await expectEverywhere((server) => status(server, first), 'QUEUED')

    // A new report belongs in a search kept by both.
    const second = await create(servers[1]!, 'through two')
    await expectEverywhere(found, ['through one QUEUED', 'through two QUEUED'])
    await expectEverywhere((server) => status(server, second), 'QUEUED')

    // Another connection than either server's: a report's change, then its deletion.
    await outsideSql(database, `UPDATE report_instances SET status = 'ERROR' WHERE id = ?`, `UPDATE report_instances SET status = 'ERROR' WHERE id = $1`, [first])
    await expectEverywhere((server) => status(server, first), 'ERROR')
    await expectEverywhere(found, ['through one ERROR', 'through two QUEUED'])
    await outsideSql(database, `DELETE FROM report_instances WHERE id = ?`, `DELETE FROM report_instances WHERE id = $1`, [second])
    await expectEverywhere((server) => status(server, second), 404)
    await expectEverywhere(found, ['through one ERROR'])
  })
})
