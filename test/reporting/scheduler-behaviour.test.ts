// The scheduler's rules beyond the calendar: the DST policy end to end (a start time inside the skipped hour runs
// once, as far past the gap as it was into it; inside the repeated hour, once, the first time), missed windows
// after downtime queued once each, oldest first, and run in that order; sweeps at once queue nothing twice; a
// changed subscription starts again and a deleted one stops; what a report holds is copied when it is queued. And
// a sweep's bounds: organizations take turns a slice at a time, the event loop turns between windows, an organization
// with REPORT_MAX_QUEUED_PER_ORG reports in flight gets no more until some are generated, and jobs are due in the
// order their windows were queued.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { OTHER_KEY, TESTREST_KEY, signedCall } from '../support/reporting.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.UTC(2026, 2, 1)), env: { JOBS_POLL_MS: '0' } })
})
afterAll(() => t.close())

const put = (body: object) => signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(body), key: TESTREST_KEY })
const subscribe = (reportName: string, terms: object) => put({ reportDefinitionName: 'TransactionRequestClass', reportName, reportFields: ['Request.RequestID'], ...terms })
const sweep = () => t.app.services.reporting.scheduler.sweep()
const setClock = (iso: string) => t.clock.advance(Date.parse(iso) - t.clock.now().getTime())
const search = async (reportName: string, status?: string) => {
  const path = `/reporting/v3/reports?startTime=2026-01-01T00:00:00Z&endTime=2027-01-01T00:00:00Z&timeQueryType=reportTimeFrame&reportName=${encodeURIComponent(reportName)}${status ? `&reportStatus=${status}` : ''}`
  const res = await signedCall(t, { method: 'GET', path, key: TESTREST_KEY })
  return res.status === 404 ? [] : (res.json.reportSearchResults as { reportId: string; status: string; reportStartTime: string; reportEndTime: string; reportFields?: string[] }[])
}
const windows = async (reportName: string, status?: string) => (await search(reportName, status)).map((r) => `${r.reportStartTime} → ${r.reportEndTime}`)

describe('the DST policy, end to end', () => {
  it('a daily run at 02:30 New York time: once on the night the hour is skipped, at 03:30 EDT; windows of 24 and 23 hours', async () => {
    expect((await subscribe('skipped hour', { timezone: 'America/New_York', startTime: '0230' })).status).toBe(200)
    setClock('2026-03-06T12:00:00Z')
    await sweep()
    for (const at of ['2026-03-07T07:30:00Z', '2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z']) {
      setClock(at)
      t.clock.advance(-1)
      expect((await sweep()).queued).toEqual([])
      t.clock.advance(1)
      expect((await sweep()).queued.map((q) => q.reportName)).toEqual(['skipped hour'])
    }
    expect(await windows('skipped hour', 'QUEUED')).toEqual([
      '2026-03-06T02:30:00-05:00 → 2026-03-07T02:30:00-05:00',
      '2026-03-07T02:30:00-05:00 → 2026-03-08T03:30:00-04:00',
      '2026-03-08T03:30:00-04:00 → 2026-03-09T02:30:00-04:00',
    ])
  })

  it('a daily run at 01:30 New York time: once on the night the hour repeats, the first time; windows of 24 and 25 hours', async () => {
    expect((await subscribe('repeated hour', { timezone: 'America/New_York', startTime: '0130' })).status).toBe(200)
    setClock('2026-10-31T00:00:00Z')
    await sweep()
    const queued: string[] = []
    for (const at of ['2026-10-31T05:30:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z']) {
      setClock(at)
      queued.push(...(await sweep()).queued.filter((q) => q.reportName === 'repeated hour').map((q) => new Date(q.end).toISOString()))
    }
    // 06:30Z on 1 November is 01:30 again (EST): no second run.
    expect(queued).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'])
    expect((await windows('repeated hour', 'QUEUED')).slice(-2)).toEqual([
      '2026-10-31T01:30:00-04:00 → 2026-11-01T01:30:00-04:00',
      '2026-11-01T01:30:00-04:00 → 2026-11-02T01:30:00-05:00',
    ])
  })

  it('Lord Howe: 02:15 inside its 30-minute gap runs at 02:45; windows of 23.5 hours across it', async () => {
    expect((await subscribe('half hour gap', { timezone: 'Australia/Lord_Howe', startTime: '0215' })).status).toBe(200)
    setClock('2026-10-02T00:00:00Z')
    await sweep()
    setClock('2026-10-04T00:00:00Z')
    await sweep()
    expect((await windows('half hour gap', 'QUEUED')).slice(-2)).toEqual([
      '2026-10-02T02:15:00+10:30 → 2026-10-03T02:15:00+10:30',
      '2026-10-03T02:15:00+10:30 → 2026-10-04T02:45:00+11:00',
    ])
  })
})

describe('after downtime', () => {
  it('queues each missed window once, oldest first, due in that order; a second sweep at once adds nothing', async () => {
    setClock('2026-11-10T00:00:00Z')
    expect((await subscribe('missed', { timezone: 'GMT', startTime: '0600' })).status).toBe(200)
    await sweep()
    expect(await windows('missed')).toEqual(['2026-11-09T06:00:00+00:00 → 2026-11-10T06:00:00+00:00'])
    // The server is down for four and a half days; then two sweeps start at once.
    setClock('2026-11-14T12:00:00Z')
    const [a, b] = await Promise.all([sweep(), sweep()])
    const queued = [...a.queued, ...b.queued].filter((q) => q.reportName === 'missed')
    expect(queued.map((q) => new Date(q.end).toISOString().slice(0, 10))).toEqual(['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14'])
    expect((await sweep()).queued).toEqual([])
    const results = await search('missed')
    expect(results.map((r) => r.status)).toEqual(['QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'QUEUED', 'PENDING'])
    // Each is one job, due at its own run instant, so the runner takes the oldest first.
    const jobs = await t.db.kysely.selectFrom('jobs').select(['payload', 'run_at']).where('kind', '=', 'report.generate').orderBy('run_at').execute()
    const order = jobs.map((j) => (JSON.parse(j.payload) as { instanceId: string }).instanceId).filter((id) => results.some((r) => r.reportId === id))
    expect(order).toEqual(results.slice(0, 5).map((r) => r.reportId))
    expect(new Set(jobs.map((j) => j.payload)).size).toBe(jobs.length)
    // The two sweeps numbered on from each other: no two due at the same time (the runner takes ties in any order).
    const dueOf = new Map(jobs.map((j) => [(JSON.parse(j.payload) as { instanceId: string }).instanceId, j.run_at]))
    const due = results.slice(0, 5).map((r) => dueOf.get(r.reportId)!)
    expect(new Set(due).size).toBe(5)
    expect([...due].sort()).toEqual(due)

    // Generated, one at a time as the runner claims them: started and finished oldest first.
    const summary = await t.app.services.jobs.runDue()
    expect(summary.failed).toBe(0)
    const done = await search('missed')
    expect(done.slice(0, 5).map((r) => r.status)).toEqual(['NO_DATA', 'NO_DATA', 'NO_DATA', 'NO_DATA', 'NO_DATA'])
  })
})

describe('subscription changes', () => {
  it('a changed start time replaces the open window; a deletion removes it and nothing more is queued', async () => {
    setClock('2026-12-01T00:00:00Z')
    expect((await subscribe('changing', { timezone: 'Europe/London', startTime: '0800' })).status).toBe(200)
    await sweep()
    expect(await windows('changing', 'PENDING')).toEqual(['2026-11-30T08:00:00+00:00 → 2026-12-01T08:00:00+00:00'])
    expect((await subscribe('changing', { timezone: 'Europe/London', startTime: '1800', reportFields: ['Request.RequestID', 'Request.MerchantID'] })).status).toBe(200)
    expect((await sweep()).synced).toBe(1)
    expect(await windows('changing', 'PENDING')).toEqual(['2026-11-30T18:00:00+00:00 → 2026-12-01T18:00:00+00:00'])
    setClock('2026-12-01T18:00:00Z')
    const [queued] = (await sweep()).queued.filter((q) => q.reportName === 'changing')
    const detail = await signedCall(t, { method: 'GET', path: `/reporting/v3/reports/${queued!.reportId}`, key: TESTREST_KEY })
    expect(detail.json).toMatchObject({ reportStatus: 'QUEUED', reportFields: ['Request.RequestID', 'Request.MerchantID'] })

    expect((await signedCall(t, { method: 'DELETE', path: '/reporting/v3/report-subscriptions/changing', key: TESTREST_KEY })).status).toBe(200)
    expect((await sweep()).dropped).toBe(1)
    expect(await windows('changing', 'PENDING')).toEqual([])
    setClock('2026-12-05T00:00:00Z')
    expect((await sweep()).queued.filter((q) => q.reportName === 'changing')).toEqual([])
    expect(await windows('changing')).toEqual(['2026-11-30T18:00:00+00:00 → 2026-12-01T18:00:00+00:00'])
  })

  it('USER_DEFINED runs every interval from startTime within each local day', async () => {
    setClock('2026-12-10T00:00:00Z')
    expect((await subscribe('every 8h', { timezone: 'Asia/Katmandu', startTime: '0100', reportFrequency: 'USER_DEFINED', reportInterval: 'PT8H' })).status).toBe(200)
    await sweep()
    setClock('2026-12-11T00:00:00Z')
    await sweep()
    expect(await windows('every 8h', 'QUEUED')).toEqual([
      '2026-12-10T01:00:00+05:45 → 2026-12-10T09:00:00+05:45',
      '2026-12-10T09:00:00+05:45 → 2026-12-10T17:00:00+05:45',
      '2026-12-10T17:00:00+05:45 → 2026-12-11T01:00:00+05:45',
    ])
  })
})

describe("a sweep's bounds", () => {
  let u: TestApp
  beforeAll(async () => {
    u = await startTestApp({ clock: new FakeClock(Date.UTC(2026, 4, 1)), env: { JOBS_POLL_MS: '0', REPORT_MAX_QUEUED_PER_ORG: '200' } })
  })
  afterAll(() => u.close())

  it('queue a slice per organization in turns, yield between windows, hold an organization at its reports in flight; later sweeps go on', async () => {
    const hourly = (reportName: string, key = TESTREST_KEY) =>
      signedCall(u, { method: 'PUT', path: '/reporting/v3/report-subscriptions', key, body: JSON.stringify({ reportDefinitionName: 'TransactionRequestClass', reportName, reportFields: ['Request.RequestID'], timezone: 'GMT', startTime: '0000', ...(key === TESTREST_KEY ? { reportFrequency: 'USER_DEFINED', reportInterval: 'PT1H' } : {}) }) })
    for (let n = 1; n <= 4; n++) expect((await hourly(`burst ${n}`)).status).toBe(200)
    expect((await hourly('other daily', OTHER_KEY)).status).toBe(200)
    const sweepU = () => u.app.services.reporting.scheduler.sweep()
    expect(await sweepU()).toMatchObject({ synced: 5, queued: [], more: false })
    // Five days of downtime: 4 × 120 hourly windows of testrest, 5 daily ones of othermerchant.
    u.clock.advance(5 * 86_400_000)

    let turns = 0
    let ticking = true
    const tick = () => {
      turns++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const first = await sweepU()
    ticking = false
    // testrest up to the reports it may have in flight (200), othermerchant all of its own: it was not kept waiting.
    expect(first.more).toBe(true)
    expect(first.queued.filter((q) => q.organizationId === 'othermerchant')).toHaveLength(5)
    const mine = first.queued.filter((q) => q.organizationId === 'testrest')
    expect(mine).toHaveLength(200)
    // The earliest run of testrest's schedules first; the loop turned between windows.
    expect(mine.map((q) => q.end)).toEqual([...mine.map((q) => q.end)].sort((a, b) => a - b))
    expect(turns).toBeGreaterThanOrEqual(205)
    // Their generation jobs are due in the order they were queued: first come, first served.
    const jobs = await u.db.kysely.selectFrom('jobs').select(['payload']).where('kind', '=', 'report.generate').orderBy('run_at').execute()
    expect(jobs.map((j) => (JSON.parse(j.payload) as { instanceId: string }).instanceId)).toEqual(first.queued.map((q) => q.reportId))

    // Held until some are generated.
    expect(await sweepU()).toMatchObject({ queued: [], more: true })
    let sweeps = 1
    for (let more = true; more; sweeps++) {
      await u.app.services.jobs.runDue()
      more = (await sweepU()).more
    }
    expect(sweeps).toBeGreaterThanOrEqual(3)
    await u.app.services.jobs.runDue()
    for (let n = 1; n <= 4; n++) {
      const path = `/reporting/v3/reports?startTime=2026-04-30T00:00:00Z&endTime=2026-05-07T00:00:00Z&timeQueryType=reportTimeFrame&reportName=burst+${n}`
      const reports = (await signedCall(u, { method: 'GET', path, key: TESTREST_KEY })).json.reportSearchResults as { status: string; reportStartTime: string; reportEndTime: string }[]
      // Every hour once, generated (the first day's with the sandbox's transactions), one after the other, then the open one.
      expect(reports.map((r) => (r.status === 'COMPLETED' ? 'NO_DATA' : r.status))).toEqual([...Array(120).fill('NO_DATA'), 'PENDING'])
      reports.slice(1).forEach((r, i) => expect(Date.parse(r.reportStartTime)).toBe(Date.parse(reports[i]!.reportEndTime)))
    }
  }, 120_000)
})
