// An OAuth access token revoked through one process is refused by every other at once (issue 20, target 1): the
// servers remember an active token they have read (oauth/token/service.ts) only while nothing that decides a token's
// state (its row, its grant, its client, the client's application) has changed anywhere (platform/db/changes.ts:
// SQLite's data_version; on PostgreSQL the triggers' pg_notify, heard on a connection of each server's own). Two real
// `finapi serve` processes on one database; the client made and revoked by the `finapi` command, a third process.
// The memory's own bound (TOKEN_MEMORY_MS) is a minute, so a refusal within the second can only come from the signal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { TOKEN_MEMORY_MS } from '../../src/oauth/token/service.js'
import { runFinapi, startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'

const onSqlite = TEST_DIALECT === 'sqlite'
if (onSqlite) console.warn("!! test/merchant-api/token-revocation-processes.test.ts: the triggers' test is SKIPPED on SQLite (it has no triggers to test; run with TEST_PG_ADMIN_URL, as npm test does)")

let database: TestDatabase
let servers: RunningServer[] = []
let env: Record<string, string>
let client: { id: string; clientId: string; secret: string }
beforeAll(async () => {
  database = await createTestDatabase()
  env = { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' }
  servers = await startFinapiServers(2, env)
  client = await createClient()
}, 60_000)
afterAll(async () => {
  await stopFinapiServers(servers)
  await database.drop()
})

async function createClient(): Promise<{ id: string; clientId: string; secret: string }> {
  const created = await runFinapi(['clients', 'create', '--name', 'revocation test', '--scope', 'reporting', '--org', 'testrest'], env)
  expect(created.code, created.stderr).toBe(0)
  return {
    id: /Created OAuth client (\S+)/.exec(created.stdout)![1]!,
    clientId: /client_id: (\S+)/.exec(created.stdout)![1]!,
    secret: /client_secret \(shown once, store it now\): (\S+)/.exec(created.stdout)![1]!,
  }
}

const basic = (c: { clientId: string; secret: string }) => `Basic ${Buffer.from(`${c.clientId}:${c.secret}`).toString('base64')}`
const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client), 'x-svc-key': undefined } })

async function newToken(): Promise<string> {
  const res = await call(servers[0]!.baseUrl, '', 'POST', '/oauth2/v3/token', form({ grant_type: 'client_credentials', scope: 'reporting' }))
  expect(res.status, res.text).toBe(200)
  return res.json.access_token as string
}

async function statusWith(server: RunningServer, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'x-svc-key': undefined }
  return (await call(server.baseUrl, '', 'GET', '/reporting/v3/report-subscriptions', { headers })).status
}

/** Each server's answers from the moment the revocation has returned: the first, and the first 401's delay. */
async function refusalOn(server: RunningServer, token: string) {
  const start = performance.now()
  const first = await statusWith(server, token)
  let status = first
  while (status !== 401 && performance.now() - start < 2_000) status = await statusWith(server, token)
  return { first, status, ms: performance.now() - start }
}

async function expectRefusedEverywhere(token: string): Promise<void> {
  for (const server of servers) {
    const { first, status, ms } = await refusalOn(server, token)
    expect(status).toBe(401)
    // SQLite: the next call sees the file's data_version moved (or, in the revoking server, its own change).
    // PostgreSQL: the notification arrives on each server's own connection within moments of the commit.
    if (onSqlite) expect(first).toBe(401)
    else expect(ms).toBeLessThan(1_000)
  }
}

async function usedEverywhere(token: string): Promise<void> {
  for (let i = 0; i < 3; i++) for (const server of servers) expect(await statusWith(server, token)).toBe(200)
}

describe('an OAuth access token revoked elsewhere', () => {
  it('is refused by both servers at once after RFC 7009 revocation through one of them', async () => {
    expect(TOKEN_MEMORY_MS).toBeGreaterThanOrEqual(60_000)
    const token = await newToken()
    const other = await newToken()
    await usedEverywhere(token)
    await usedEverywhere(other)
    const revoked = await call(servers[0]!.baseUrl, '', 'POST', '/oauth2/v3/revoke', form({ token }))
    expect(revoked.status, revoked.text).toBe(200)
    await expectRefusedEverywhere(token)
    // Another grant of the same client is not affected.
    for (const server of servers) expect(await statusWith(server, other)).toBe(200)
  })

  it('is refused by both servers at once when its grant is revoked by SQL from outside finapi', async () => {
    const token = await newToken()
    await usedEverywhere(token)
    // Another connection than either server's: SQLite's data_version moves; PostgreSQL's trigger notifies.
    if (onSqlite) {
      const { default: Database } = await import('better-sqlite3')
      const outside = new Database(new URL(database.url).pathname)
      try {
        outside.prepare(`UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at IS NULL AND client_id = ?`).run(new Date().toISOString(), client.id)
      } finally {
        outside.close()
      }
    } else {
      const outside = new pg.Client({ connectionString: database.url })
      await outside.connect()
      try {
        await outside.query(`UPDATE oauth_grants SET revoked_at = $1 WHERE revoked_at IS NULL AND client_id = $2`, [new Date().toISOString(), client.id])
      } finally {
        await outside.end()
      }
    }
    await expectRefusedEverywhere(token)
  })

  it('is refused by both servers at once when the finapi command revokes its client', async () => {
    const token = await newToken()
    await usedEverywhere(token)
    const revoked = await runFinapi(['clients', 'revoke', client.id], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    await expectRefusedEverywhere(token)
  })
})

describe.skipIf(onSqlite)('the triggers (PostgreSQL)', () => {
  it('name their channel for an update or delete of each table that decides a token, even one that changes no row', async () => {
    const listener = new pg.Client({ connectionString: database.url })
    await listener.connect()
    const heard: string[] = []
    listener.on('notification', (message) => heard.push(message.payload ?? ''))
    try {
      await listener.query('LISTEN finapi_changes')
      const writer = new pg.Client({ connectionString: database.url })
      await writer.connect()
      try {
        for (const table of ['oauth_tokens', 'oauth_grants', 'oauth_clients', 'applications']) {
          await writer.query(`UPDATE ${table} SET created_at = created_at WHERE false`)
          await writer.query(`DELETE FROM ${table} WHERE false`)
        }
        // An insert says nothing: a token not found is never remembered.
        await writer.query(`INSERT INTO applications (id, name, key_hash, key_prefix, status, created_at) VALUES ('trigger-test', 'x', 'trigger-test', 'x', 'active', '2026-01-01T00:00:00.000Z')`)
      } finally {
        await writer.end()
      }
      const deadline = performance.now() + 2_000
      while (heard.length < 8 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(heard).toEqual(['oauth_tokens', 'oauth_tokens', 'oauth_grants', 'oauth_grants', 'oauth_clients', 'oauth_clients', 'applications', 'applications'])
    } finally {
      await listener.end()
    }
  })
})
