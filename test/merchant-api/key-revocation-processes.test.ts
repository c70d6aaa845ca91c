// A reporting key revoked by one process is refused by every other at once (issue 20, target 1): the servers
// remember a key they have verified (applications/reporting-keys/service.ts) only while no reporting key has changed
// anywhere (platform/db/changes.ts: SQLite's data_version; on PostgreSQL a trigger's pg_notify, heard on a connection
// of each server's own). Two real `finapi serve` processes on one database, the key made and revoked by the `finapi`
// command, a third process. The memory's own bound (KEY_MEMORY_MS) is a minute, so a refusal within the second can
// only come from the change signal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { KEY_MEMORY_MS } from '../../src/applications/reporting-keys/service.js'
import { runFinapi, startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'
import { signedHeaders } from '../support/reporting.js'

const onSqlite = TEST_DIALECT === 'sqlite'
if (onSqlite) console.warn('!! test/merchant-api/key-revocation-processes.test.ts: the lost-listener test is SKIPPED on SQLite (it has no listening connection; run with TEST_PG_ADMIN_URL, as npm test does)')

let database: TestDatabase
let servers: RunningServer[] = []
let env: Record<string, string>
beforeAll(async () => {
  database = await createTestDatabase()
  env = { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' }
  servers = await startFinapiServers(2, env)
}, 60_000)
afterAll(async () => {
  await stopFinapiServers(servers)
  await database.drop()
})

async function createKey(): Promise<{ id: string; secret: string; org: string }> {
  const created = await runFinapi(['keys', 'create', '--org', 'testrest'], env)
  expect(created.code, created.stderr).toBe(0)
  return { id: /Key id: (\S+)/.exec(created.stdout)![1]!, secret: /Shared secret \(shown once, store it now\): (\S+)/.exec(created.stdout)![1]!, org: 'testrest' }
}

/** A signed read of the subscription list with `key` (signed afresh: the date is the real clock's). */
async function statusWith(server: RunningServer, key: { id: string; secret: string; org: string }): Promise<number> {
  const path = '/reporting/v3/report-subscriptions'
  const headers = { ...signedHeaders({ method: 'GET', path, key }), 'x-svc-key': undefined }
  return (await call(server.baseUrl, '', 'GET', path, { headers })).status
}

/** Each server's answers from the moment the revocation has returned: the first, and the first 401's delay. */
async function refusalOn(server: RunningServer, key: { id: string; secret: string; org: string }) {
  const start = performance.now()
  const first = await statusWith(server, key)
  let status = first
  while (status !== 401 && performance.now() - start < 2_000) status = await statusWith(server, key)
  return { first, status, ms: performance.now() - start }
}

describe('a reporting key revoked by another process', () => {
  it('is refused by both servers at once, although each had just verified it', async () => {
    expect(KEY_MEMORY_MS).toBeGreaterThanOrEqual(60_000)
    const key = await createKey()
    for (let i = 0; i < 3; i++) for (const server of servers) expect(await statusWith(server, key)).toBe(200)
    const revoked = await runFinapi(['keys', 'revoke', key.id], env)
    expect(revoked.stdout).toContain(`Revoked reporting key ${key.id}.`)
    for (const server of servers) {
      const { first, status, ms } = await refusalOn(server, key)
      expect(status).toBe(401)
      // SQLite: the next call sees the file's data_version moved. PostgreSQL: the notification arrives on its own
      // connection, within moments of the commit; a call that overtakes it may still pass.
      if (onSqlite) expect(first).toBe(401)
      else expect(ms).toBeLessThan(1_000)
    }
    // Another key of the same organization is not affected.
    const other = await createKey()
    for (const server of servers) expect(await statusWith(server, other)).toBe(200)
  })
})

describe.skipIf(onSqlite)('while a server is not listening (PostgreSQL)', () => {
  it('reads the key on every call, so a revocation it could not hear still counts at once', async () => {
    const key = await createKey()
    for (const server of servers) expect(await statusWith(server, key)).toBe(200)
    // End every server's listening connection, as a database restart or an administrator would.
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    try {
      const ended = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN finapi_changes'`)
      expect(ended.rowCount).toBe(2)
      // Time for the servers to see their connections end (PostgreSQL says so on the socket before closing it).
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Made while nobody listens, so no notification of it is ever delivered.
      await admin.query(`UPDATE reporting_keys SET status = 'revoked', revoked_at = $2 WHERE id = $1`, [key.id, new Date().toISOString()])
    } finally {
      await admin.end()
    }
    for (const server of servers) expect(await statusWith(server, key)).toBe(401)
    // And they listen again: a key revoked later by the command is refused within the second.
    const next = await createKey()
    for (const server of servers) expect(await statusWith(server, next)).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    for (const server of servers) expect(await statusWith(server, next)).toBe(200)
    expect((await runFinapi(['keys', 'revoke', next.id], env)).code).toBe(0)
    for (const server of servers) {
      const { status, ms } = await refusalOn(server, next)
      expect(status).toBe(401)
      expect(ms).toBeLessThan(1_000)
    }
  })
})
