// The report engine across real server processes (`finapi serve`, the compiled build). Two servers on one
// PostgreSQL database sweep and generate at once: every window becomes one report, generated once, with one event
// (PostgreSQL only: SQLite has one writer per file). A server killed with SIGKILL in the middle of generating a
// 300,000-row report leaves it RUNNING; a restarted server takes it over once the lease lapses and completes it
// once (both databases), and on SQLite removes the killed write's temp file.
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sql } from 'kysely'
import { request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { gunzipSync } from 'node:zlib'
import { TEMP_STALE_MS } from '../../src/platform/blobs/directory-store.js'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { runFinapi, startFinapiServer, type RunningServer } from '../support/cli.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/database.js'
import { TESTREST_KEY, signedHeaders } from '../support/reporting.js'

const onSqlite = TEST_DIALECT === 'sqlite'
if (onSqlite) console.warn('!! test/reporting/report-processes.test.ts: the two-server test is SKIPPED on SQLite (it needs PostgreSQL: run with TEST_PG_ADMIN_URL, as npm test does)')

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
})

async function setup(): Promise<{ database: TestDatabase; db: Db; env: (extra?: Record<string, string>) => Record<string, string> }> {
  const database = await createTestDatabase()
  cleanups.push(() => database.drop())
  const env = (extra: Record<string, string> = {}) => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'info', LOG_FORMAT: 'json', JOBS_POLL_MS: '100', ...extra })
  const migrated = await runFinapi(['migrate'], env())
  expect(migrated.code, migrated.stderr).toBe(0)
  const db = openDatabase(database.url)
  cleanups.push(() => db.close())
  return { database, db, env }
}

async function serve(env: Record<string, string>): Promise<RunningServer> {
  const server = await startFinapiServer(env)
  cleanups.push(async () => {
    server.child.kill('SIGTERM')
    await server.exited
  })
  return server
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Signed headers for undici (the harness's banking default is dropped). */
const signed = (o: Parameters<typeof signedHeaders>[0]) => Object.fromEntries(Object.entries(signedHeaders(o)).filter(([, v]) => v !== undefined))
const count = async (db: Db, query: ReturnType<typeof sql<{ n: string }>>) => Number((await query.execute(db.kysely)).rows[0]!.n)
const finishedLines = (server: RunningServer) => server.output().split('\n').filter((l) => l.includes('"msg":"report finished"'))

describe.skipIf(onSqlite)('two servers on one PostgreSQL database', () => {
  it('make each of 200 reports once: one instance per window, one run, one event; both do part of the work', async () => {
    const { db, env } = await setup()
    const now = new Date().toISOString()
    // Twenty daily subscriptions whose windows end on the hour, none in this hour or the next: a window that ended
    // while the test ran (a run across 15:00 with one ending at 15:00) made 201 reports of 200 in CI.
    const hour = new Date().getUTCHours()
    for (let i = 0; i < 20; i++) {
      await db.kysely
        .insertInto('report_subscriptions')
        .values({ organization_id: 'testrest', report_name: `pair ${i}`, subscription_type: 'CUSTOM', subscription_status: 'ACTIVE', report_definition_name: 'TransactionRequestClass', report_mime_type: 'text/csv', report_frequency: 'DAILY', report_interval: null, timezone: 'GMT', start_time: `${String((hour + 2 + i) % 24).padStart(2, '0')}00`, start_day: null, report_fields: '["Request.RequestID","BillTo.Email"]', report_filters: '{}', report_preferences: '{"signedAmounts":true,"fieldNameConvention":"SOAPI"}', group_name: null, created_at: now, updated_at: now })
        .execute()
    }
    const servers = await Promise.all([serve(env()), serve(env())])
    await until('each subscription’s first window', async () => (await count(db, sql`select count(*) as n from report_instances where status = 'PENDING'`)) === 20)
    // Ten days pass for testrest at once: both servers' sweeps and runners compete for the 200 windows.
    await db.kysely.insertInto('report_clocks').values({ organization_id: 'testrest', offset_ms: String(10 * 86_400_000), updated_at: now }).execute()
    await until('200 finished reports', async () => (await count(db, sql`select count(*) as n from report_instances where status in ('COMPLETED', 'NO_DATA', 'ERROR')`)) >= 200 && (await count(db, sql`select count(*) as n from report_instances where status in ('QUEUED', 'RUNNING')`)) === 0)
    await new Promise((resolve) => setTimeout(resolve, 500)) // a late duplicate would show by now

    expect(await count(db, sql`select count(*) as n from report_instances where status <> 'PENDING'`)).toBe(200)
    expect(await count(db, sql`select count(*) as n from (select distinct report_name, window_start, window_end from report_instances) w`)).toBe(220)
    expect(await count(db, sql`select count(*) as n from report_instances where status <> 'PENDING' and runs <> 1`)).toBe(0)
    expect(await count(db, sql`select count(*) as n from report_events`)).toBe(200)
    expect(await count(db, sql`select count(distinct instance_id) as n from report_events`)).toBe(200)
    expect(await count(db, sql`select count(*) as n from jobs where kind = 'report.generate' and (status <> 'done' or attempts <> 1)`)).toBe(0)
    expect(await count(db, sql`select count(*) as n from jobs where kind = 'report.generate'`)).toBe(200)
    await until('the log lines', async () => servers.reduce((n, s) => n + finishedLines(s).length, 0) >= 200, 5_000)
    const perServer = servers.map((s) => finishedLines(s).length)
    expect(perServer[0]! + perServer[1]!).toBe(200)
    expect(Math.min(...perServer), `per server: ${perServer.join(', ')}`).toBeGreaterThan(0)
  }, 120_000)
})

/** 300,000 sales of testrest on 1 January 2020, written by the database itself. */
async function insertBigDay(db: Db): Promise<void> {
  const fields = `'{"BillTo":{"Email":"buyer' || n || '@example.com","City":"Lyon"},"Application":{"Name":"ics_bill"}}'`
  if (db.dialect === 'postgres') {
    await sql
      .raw(`insert into transactions (organization_id, request_id, type, request_time, currency, amount, fields)
      select 'testrest', lpad(n::text, 22, '0'), 'sale', to_char(timestamp '2020-01-01' + n * interval '250 milliseconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'USD', (n % 1000)::text || '.99', ${fields}
      from generate_series(1, 300000) as g(n)`)
      .execute(db.kysely)
  } else {
    await sql
      .raw(`insert into transactions (organization_id, request_id, type, request_time, currency, amount, fields)
      with recursive g(n) as (select 1 union all select n + 1 from g where n < 300000)
      select 'testrest', substr('0000000000000000000000' || n, -22), 'sale', strftime('%Y-%m-%dT%H:%M:%fZ', '2020-01-01', '+' || (n * 0.25) || ' seconds'), 'USD', (n % 1000) || '.99', ${fields} from g`)
      .execute(db.kysely)
  }
}

describe('a server killed in the middle of generating a report', () => {
  it('leaves it RUNNING; a restarted server takes it over after the lease and completes it once', async () => {
    const { database, db, env } = await setup()
    await insertBigDay(db)
    const serverEnv = env({ REPORT_LEASE_SECONDS: '2' })
    const doomed = await serve(serverEnv)
    const body = JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportName: 'big day', reportFields: ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'BillTo.Email', 'BillTo.City', 'Application.Name'], timezone: 'GMT', reportStartTime: '2020-01-01T00:00:00Z', reportEndTime: '2020-01-02T00:00:00Z' })
    const path = '/reporting/v3/reports'
    const created = await request(doomed.baseUrl + path, { method: 'POST', body, headers: signed({ method: 'POST', path, body, key: TESTREST_KEY }) })
    expect(created.statusCode).toBe(201)
    await created.body.dump()
    const id = (created.headers['location'] as string).split('/').pop()!

    await until('generation to start', async () => (await db.kysely.selectFrom('report_instances').select('status').where('id', '=', id).executeTakeFirst())?.status === 'RUNNING', 30_000)
    // SQLite keeps report files in a folder beside the database: killed while it writes one, it leaves its temp file.
    const tmp = join(dirname(database.url.slice('sqlite:'.length)), 'reports', 'tmp')
    const written = () => (existsSync(tmp) ? readdirSync(tmp).filter((name) => statSync(join(tmp, name)).size > 0) : [])
    if (onSqlite) await until('the report file to be written', async () => written().length > 0, 30_000)
    doomed.child.kill('SIGKILL')
    expect(await doomed.exited).toBeNull()
    const left = await db.kysely.selectFrom('report_instances').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(left).toMatchObject({ status: 'RUNNING', runs: 1 })
    expect(await count(db, sql`select count(*) as n from report_events`)).toBe(0)
    // Made as old as TEMP_STALE_MS (what time would do), the orphan is gone once the restarted server has started.
    const orphans = written()
    if (onSqlite) {
      expect(orphans.length).toBeGreaterThan(0)
      const stale = new Date(Date.now() - TEMP_STALE_MS - 1_000)
      for (const name of orphans) utimesSync(join(tmp, name), stale, stale)
    }

    // The killed server's 2-second lease is what must lapse; the rescuer's own is long, so that a slow machine (a
    // renewal late by 2 s under load) cannot make it lose the report to itself and count a third run.
    const rescuer = await serve(env({ REPORT_LEASE_SECONDS: '30' }))
    if (onSqlite) await until('the orphaned temp file to go', async () => orphans.every((name) => !readdirSync(tmp).includes(name)), 10_000)
    const done = await until('the report to complete', async () => {
      const row = await db.kysely.selectFrom('report_instances').selectAll().where('id', '=', id).executeTakeFirst()
      return row?.status === 'COMPLETED' && row
    })
    expect(done).toMatchObject({ runs: 2, row_count: 300_000 })
    const events = await db.kysely.selectFrom('report_events').selectAll().execute()
    expect(events.map((e) => [e.instance_id, e.event_type, e.run])).toEqual([[id, 'COMPLETED', 2]])
    // The job is marked done in a commit of its own after the report's (the runner's group commit): waited for.
    const jobs = () => db.kysely.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', 'report.generate').execute()
    await until('the job to be done', async () => (await jobs()).every((j) => j.status === 'done'), 10_000)
    expect(await jobs()).toEqual([{ status: 'done', attempts: 2 }])
    // Log lines go out through a buffered writer, flushed every 250 ms.
    await until('the log line', async () => finishedLines(rescuer).length > 0, 5_000)
    expect(finishedLines(rescuer)).toHaveLength(1)

    const download = '/reporting/v3/report-downloads?reportName=big+day&reportDate=2020-01-01'
    const res = await request(rescuer.baseUrl + download, { headers: { ...signed({ method: 'GET', path: download, key: TESTREST_KEY }), 'accept-encoding': 'gzip' } })
    expect(res.statusCode).toBe(200)
    const lines = gunzipSync(Buffer.from(await res.body.arrayBuffer())).toString('utf8').split('\r\n')
    expect(lines).toHaveLength(300_002)
    expect(lines[1]).toBe('0000000000000000000001,2020-01-01T00:00:00.250Z,testrest,buyer1@example.com,Lyon,ics_bill')
    expect(lines[300_000]).toBe('0000000000000000300000,2020-01-01T20:50:00.000Z,testrest,buyer300000@example.com,Lyon,ics_bill')
  }, 120_000)
})
