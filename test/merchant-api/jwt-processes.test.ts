// A JWT is accepted once across server processes (a GET's twice: the SDK sends a download twice with one token): two
// real `finapi serve` processes on one database (PostgreSQL, or one SQLite file) receive the same token many times at
// once, and exactly one call (two GETs) gets through. The jti is
// recorded by one insert on a unique key, never by a read followed by a write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFinapiServers, stopFinapiServers, type RunningServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'
import { TESTREST_KEY } from '../support/reporting.js'
import { makeJwt } from '../support/reporting-jwt.js'

let database: TestDatabase
let servers: RunningServer[] = []
beforeAll(async () => {
  database = await createTestDatabase()
  const env = { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '0' }
  servers = await startFinapiServers(2, env)
}, 60_000)
afterAll(async () => {
  await stopFinapiServers(servers)
  await database.drop()
})

describe('a JWT across processes', () => {
  it('is accepted exactly once (a PUT), or exactly twice (a GET), when both processes receive it many times at once', async () => {
    const path = '/reporting/v3/report-definitions'
    // The servers read the real clock, as the SDK does.
    const jwt = makeJwt({ method: 'GET', path, signer: { key: TESTREST_KEY }, issuer: 'testrest', now: new Date() })
    const headers = { 'x-svc-key': undefined, authorization: `Bearer ${jwt}` }
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(servers[i % 2]!.baseUrl, '', 'GET', path, { headers })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, ...Array<number>(18).fill(401)])

    const put = '/reporting/v3/report-subscriptions'
    const body = JSON.stringify({ reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Once', reportFields: ['VERes.Enrolled'], timezone: 'GMT' })
    const once = makeJwt({ method: 'PUT', path: put, body, signer: { key: TESTREST_KEY }, issuer: 'testrest', now: new Date() })
    const putHeaders = { 'x-svc-key': undefined, authorization: `Bearer ${once}`, 'content-type': 'application/json' }
    const puts = await Promise.all(Array.from({ length: 20 }, (_, i) => call(servers[i % 2]!.baseUrl, '', 'PUT', put, { headers: putHeaders, body })))
    expect(puts.map((a) => a.status).sort()).toEqual([200, ...Array<number>(19).fill(401)])
    // Another token goes through on either process.
    for (const server of servers) {
      const fresh = makeJwt({ method: 'GET', path, signer: { key: TESTREST_KEY }, issuer: 'testrest', now: new Date() })
      expect((await call(server.baseUrl, '', 'GET', path, { headers: { 'x-svc-key': undefined, authorization: `Bearer ${fresh}` } })).status).toBe(200)
    }
  })
})
