// The sandbox's reporting clock: an organization moves its own reporting time forward (POST /sandbox/v1/clock, and
// `finapi clock advance`), every report due for it by then is queued in order and generated exactly as the scheduler
// would have, and no other organization's time or reports move. A move that makes more reports due than one answer
// queues is answered 202 and caught up by a job, with at most REPORT_MAX_QUEUED_PER_ORG (60 here) reports of the
// organization in flight at once. Also the operator commands around reports.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/platform/db/database.js'
import { runFinapi } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { ACCT_KEY, OTHER_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'
import { createReport, settle, type Key } from '../support/reports.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), env: { REPORT_MAX_QUEUED_PER_ORG: '60' } })
})
afterAll(() => t.close())

const clockCall = (method: string, body?: object, key: Key = TESTREST_KEY) => signedCall(t, { method, path: '/sandbox/v1/clock', body: body && JSON.stringify(body), key })
const subscribe = (key: Key, reportName: string) =>
  signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', key, body: JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportName, reportFields: ['Request.RequestID'], timezone: 'GMT', startTime: '0600' }) })
const statuses = async (key: Key) => {
  const res = await signedCall(t, { method: 'GET', path: '/reporting/v3/reports?startTime=2026-01-01T00:00:00Z&endTime=2026-03-01T00:00:00Z&timeQueryType=reportTimeFrame', key })
  return res.status === 404 ? [] : (res.json.reportSearchResults as { reportName: string; status: string; reportEndTime: string; queuedTime?: string }[])
}

describe('POST /sandbox/v1/clock', () => {
  it("moves only the caller's reporting time; every report due by then is queued in order, then generated", async () => {
    expect((await subscribe(TESTREST_KEY, 'clock daily')).status).toBe(200)
    expect((await subscribe(OTHER_KEY, 'other daily')).status).toBe(200)
    await settle(t)
    // The organization's time runs with the server's (the fake clock moved two seconds for the server's polls).
    expect((await clockCall('GET')).json).toEqual({ organizationId: 'testrest', now: '2026-02-01T09:00:02.000Z', offsetSeconds: 0 })

    const moved = await clockCall('POST', { to: '2026-02-04T07:00:00Z' })
    expect(moved.status).toBe(200)
    expect(moved.json).toMatchObject({ organizationId: 'testrest', now: '2026-02-04T07:00:00.000Z', offsetSeconds: 2 * 86_400 + 22 * 3600 - 2 })
    expect(moved.json.queued.map((q: { reportName: string; reportEndTime: string }) => `${q.reportName} ${q.reportEndTime}`)).toEqual([
      'clock daily 2026-02-02T06:00:00.000Z',
      'clock daily 2026-02-03T06:00:00.000Z',
      'clock daily 2026-02-04T06:00:00.000Z',
    ])
    await settle(t)
    const mine = (await statuses(TESTREST_KEY)).filter((r) => r.reportName === 'clock daily')
    // The sandbox data ends on the day the server first started: the first window has it, the later ones none.
    expect(mine.map((r) => `${r.reportEndTime} ${r.status}`)).toEqual([
      '2026-02-02T06:00:00+00:00 COMPLETED',
      '2026-02-03T06:00:00+00:00 NO_DATA',
      '2026-02-04T06:00:00+00:00 NO_DATA',
      '2026-02-05T06:00:00+00:00 PENDING',
    ])
    // Times of the organization's reports are its own.
    expect(mine[0]!.queuedTime).toBe('2026-02-04T07:00:00+00:00')

    // Another organization: its time and reports did not move.
    expect((await clockCall('GET', undefined, OTHER_KEY)).json).toMatchObject({ organizationId: 'othermerchant', offsetSeconds: 0 })
    expect((await statuses(OTHER_KEY)).map((r) => r.status)).toEqual(['PENDING'])
  })

  it("queues a one-time report whose window closed by the organization's time, not the server's", async () => {
    const res = await createReport(t, { reportDefinitionName: 'TransactionRequestClass', reportName: 'future by server time', reportFields: ['Request.RequestID'], reportStartTime: '2026-02-02T00:00:00Z', reportEndTime: '2026-02-03T00:00:00Z' })
    expect(res.status).toBe(201)
    expect((await signedCall(t, { method: 'GET', path: res.headers['location'] as string, key: TESTREST_KEY })).json.reportStatus).toBe('QUEUED')
  })

  it('refuses a time that is not later than the organization’s, or is no time', async () => {
    for (const to of ['2026-02-04T06:59:59Z', 'tomorrow']) {
      const res = await clockCall('POST', { to })
      expect(res.status).toBe(400)
      expect(res.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'to' }] })
    }
  })
})

describe('a move that makes many reports due', () => {
  it('answers 202 with those it queued; a catch-up job queues the rest in order, each window once, 60 in flight at most', async () => {
    const hourly = { reportDefinitionName: 'TransactionRequestClass', reportName: 'acct hourly', reportFields: ['Request.RequestID'], timezone: 'GMT', reportFrequency: 'USER_DEFINED', reportInterval: 'PT1H', startTime: '0000' }
    expect((await signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', key: ACCT_KEY, body: JSON.stringify(hourly) })).status).toBe(200)
    await settle(t)
    const inFlight = async () => Number((await sql<{ n: string | number }>`select count(*) as n from report_instances where organization_id = 'testrest_acct' and status in ('QUEUED', 'RUNNING')`.execute(t.db.kysely)).rows[0]!.n)

    // Ten days of hourly runs: 240 windows.
    const moved = await clockCall('POST', { to: new Date(t.clock.now().getTime() + 10 * 86_400_000).toISOString() }, ACCT_KEY)
    expect(moved.status).toBe(202)
    expect(moved.json).toMatchObject({ organizationId: 'testrest_acct', catchingUp: true })
    // As many as one answer queues, the oldest first.
    expect(moved.json.queued).toHaveLength(50)
    expect(moved.json.queued[0].reportEndTime).toBe('2026-02-01T10:00:00.000Z')
    expect(await inFlight()).toBe(50)

    // The jobs run in real time between ticks, so a loaded machine needs more ticks than a quiet one (a quiet one
    // needed about 200): tick until every window is done, or until a minute before the open window would close and
    // make another report due.
    const movedTo = Date.parse(moved.json.now as string)
    const deadline = t.clock.now().getTime() + (Math.floor(movedTo / 3_600_000) + 1) * 3_600_000 - movedTo - 60_000
    let seen = 0
    while (seen < 240 && t.clock.now().getTime() < deadline) {
      await t.clock.tick(1000)
      expect(await inFlight()).toBeLessThanOrEqual(60)
      seen = Number((await sql<{ n: string | number }>`select count(*) as n from report_instances where organization_id = 'testrest_acct' and status in ('COMPLETED', 'NO_DATA')`.execute(t.db.kysely)).rows[0]!.n)
    }
    const path = '/reporting/v3/reports?startTime=2026-02-01T00:00:00Z&endTime=2026-02-13T00:00:00Z&timeQueryType=reportTimeFrame&reportName=acct+hourly'
    const reports = (await signedCall(t, { method: 'GET', path, key: ACCT_KEY })).json.reportSearchResults as { status: string; reportStartTime: string; reportEndTime: string }[]
    // Every hour once, one after the other, then the open one.
    expect(reports.map((r) => r.status)).toEqual([...Array(240).fill('NO_DATA'), 'PENDING'])
    reports.slice(1).forEach((r, i) => expect(Date.parse(r.reportStartTime)).toBe(Date.parse(reports[i]!.reportEndTime)))
    expect(reports.slice(1).map((r) => Date.parse(r.reportEndTime) - Date.parse(r.reportStartTime))).toEqual(Array(240).fill(3_600_000))
    // Its catch-up job is done.
    const jobs = await t.db.kysely.selectFrom('jobs').select(['status']).where('kind', '=', 'report.catch-up').execute()
    expect(jobs).toEqual([{ status: 'done' }])
  })
})

describe('finapi clock and reports commands', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(() => database.drop())
  const env = () => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn' })

  it('advances a merchant’s clock and generates what came due; lists, runs and retries reports', async () => {
    expect((await runFinapi(['migrate'], env())).code).toBe(0)
    const db = openDatabase(database.url)
    const now = Date.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    await db.kysely
      .insertInto('report_subscriptions')
      .values({ organization_id: 'testrest_two', report_name: 'cli daily', subscription_type: 'CUSTOM', subscription_status: 'ACTIVE', report_definition_name: 'TransactionRequestClass', report_mime_type: 'text/csv', report_frequency: 'DAILY', report_interval: null, timezone: 'GMT', start_time: '0000', start_day: null, report_fields: '["Request.RequestID"]', report_filters: '{}', report_preferences: '{"signedAmounts":true,"fieldNameConvention":"SOAPI"}', group_name: null, created_at: iso(now), updated_at: iso(now) })
      .execute()
    await db.close()
    const dayAfterTomorrow = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 2, 1)
    const advanced = await runFinapi(['clock', 'advance', '--org', 'testrest_two', '--to', iso(dayAfterTomorrow)], env())
    expect(advanced.code, advanced.stderr).toBe(0)
    // The organization's time runs on from there with the real clock: a few milliseconds later when printed.
    expect(advanced.stdout).toMatch(new RegExp(`^Reporting time of testrest_two is now ${iso(dayAfterTomorrow).slice(0, 19)}\\.\\d{3}Z; 2 reports came due\\.`))
    const lines = advanced.stdout.trim().split('\n').slice(1).map((l) => l.split('\t'))
    // Tomorrow's midnight closes today's window (the sandbox data's last day): COMPLETED; the next has none.
    expect(lines.map((l) => [l[1], l[3]])).toEqual([
      ['cli daily', 'COMPLETED'],
      ['cli daily', 'NO_DATA'],
    ])

    const listed = await runFinapi(['reports', 'list', '--org', 'testrest_two', '--status', 'completed'], env())
    expect(listed.stdout.split('\n')[1]!.split('\t').slice(0, 4)).toEqual([lines[0]![0], 'testrest_two', 'cli daily', 'COMPLETED'])
    const retried = await runFinapi(['reports', 'retry', lines[0]![0]!], env())
    expect(retried.code, retried.stderr).toBe(0)
    expect(retried.stdout).toMatch(/^Report \S+ \(cli daily\) is COMPLETED: \d+ rows, \d+ bytes/)
    const run = await runFinapi(['reports', 'run', lines[1]![0]!], env())
    expect(run.stdout).toMatch(/is NO_DATA/)
    const bad = await runFinapi(['clock', 'advance', '--org', 'testrest_two', '--to', iso(now)], env())
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("to: must be later than the organization's reporting time now")
  }, 60_000)

  it('catches up a move that makes more reports due than one answer queues, and generates each in order', async () => {
    expect((await runFinapi(['migrate'], env())).code).toBe(0)
    const db = openDatabase(database.url)
    const now = Date.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    await db.kysely
      .insertInto('report_subscriptions')
      .values({ organization_id: 'othermerchant', report_name: 'cli hourly', subscription_type: 'CUSTOM', subscription_status: 'ACTIVE', report_definition_name: 'TransactionRequestClass', report_mime_type: 'text/csv', report_frequency: 'USER_DEFINED', report_interval: 'PT1H', timezone: 'GMT', start_time: '0000', start_day: null, report_fields: '["Request.RequestID"]', report_filters: '{}', report_preferences: '{"signedAmounts":true,"fieldNameConvention":"SOAPI"}', group_name: null, created_at: iso(now), updated_at: iso(now) })
      .execute()
    await db.close()
    // Five days of hourly runs from the next hour, up to a millisecond before the same time: 120.
    const advanced = await runFinapi(['clock', 'advance', '--org', 'othermerchant', '--to', iso(now + 5 * 86_400_000 - 1)], env())
    expect(advanced.code, advanced.stderr).toBe(0)
    const [first, ...lines] = advanced.stdout.trim().split('\n')
    expect(first).toMatch(/^Reporting time of othermerchant is now \S+; more than 50 reports came due\.$/)
    expect(lines).toHaveLength(120)
    const windows = lines.map((l) => l.split('\t')[2]!.split(' → '))
    windows.forEach(([start, end], i) => {
      expect(Date.parse(end!) - Date.parse(start!)).toBe(3_600_000)
      if (i > 0) expect(start).toBe(windows[i - 1]![1])
    })
    // Generated, each: the first hours have the sandbox's last transactions of today.
    for (const l of lines) expect(['COMPLETED', 'NO_DATA']).toContain(l.split('\t')[3])
    expect(lines.at(-1)!.split('\t')[3]).toBe('NO_DATA')
  }, 120_000)
})
