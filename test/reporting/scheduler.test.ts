// The scheduler on a fake clock over a simulated year: subscriptions made through the API in seven zones (New
// York, London, Sydney, Lord Howe's 30-minute shift, St John's, Kathmandu's +05:45, GMT), daily, weekly and monthly
// on day 31. The clock is stepped to a millisecond before and then onto every expected run instant (computed here
// by brute force over Intl, not by the server's code): nothing is queued early, every run is queued at its instant,
// once; then the reports the API lists are exactly those windows. Runs with the job runner off, so reports stay
// QUEUED (generation has its own tests), so the year's ~3,000 reports are all in flight at once: the per-organization
// limit on reports in flight (REPORT_MAX_QUEUED_PER_ORG, which holds further windows back until some are generated)
// is raised above that here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { TESTREST_KEY, signedCall } from '../support/reporting.js'

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Katmandu', 'GMT']
const START = Date.UTC(2025, 11, 31, 0, 0, 0)

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(START), env: { JOBS_POLL_MS: '0', REPORT_MAX_QUEUED_PER_ORG: '10000' } })
})
afterAll(() => t.close())

const put = (body: object) => signedCall(t, { method: 'PUT', path: '/reporting/v3/report-subscriptions', body: JSON.stringify(body), key: TESTREST_KEY })
const sweep = () => t.app.services.reporting.scheduler.sweep()
const setClock = (ms: number) => t.clock.advance(ms - t.clock.now().getTime())

/** The first instant whose local date and time in `zone` read y-m-d hh:mm, found by trying every quarter-hour offset. */
function localInstant(zone: string, y: number, m: number, d: number, hh: number, mm: number): number {
  const f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
  const wall = Date.UTC(y, m - 1, d, hh, mm)
  const wanted = `${String(d).padStart(2, '0')}/${String(m).padStart(2, '0')}/${y}, ${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`
  const hits: number[] = []
  for (let q = -12 * 4; q <= 14 * 4; q++) if (f.format(wall - q * 900_000) === wanted) hits.push(wall - q * 900_000)
  if (hits.length === 0) throw new Error(`no instant reads ${wanted} in ${zone}`)
  return Math.min(...hits)
}

type Kind = 'daily' | 'weekly' | 'monthly'
const NAMES = ZONES.flatMap((zone) => (['daily', 'weekly', 'monthly'] as Kind[]).map((kind) => ({ zone, kind, name: `${kind} ${zone.replace(/\//g, ' ').replace(/_/g, ' ')}` })))

/** Every expected run from 30 December 2025 to the end of 2026 (local dates), from the subscription's terms directly. */
function expectedRuns(zone: string, kind: Kind): number[] {
  const out: number[] = []
  for (let day = Date.UTC(2025, 11, 30); day < Date.UTC(2027, 0, 1); day += 86_400_000) {
    const date = new Date(day)
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
    const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate()
    if (kind === 'daily') out.push(localInstant(zone, y, m, d, 9, 0))
    if (kind === 'weekly' && date.getUTCDay() === 1) out.push(localInstant(zone, y, m, d, 23, 30)) // startDay 2 = Monday
    if (kind === 'monthly' && d === Math.min(31, lastDay)) out.push(localInstant(zone, y, m, d, 0, 0))
  }
  return out
}

describe('a simulated year of runs', () => {
  it('queues every daily, weekly and monthly (day 31) run of seven zones at its instant, once, and never early', async () => {
    for (const { zone, kind, name } of NAMES) {
      const terms = kind === 'daily' ? { reportFrequency: 'DAILY', startTime: '0900' } : kind === 'weekly' ? { reportFrequency: 'WEEKLY', startTime: '2330', startDay: 2 } : { reportFrequency: 'MONTHLY', startTime: '0000', startDay: 31 }
      expect((await put({ reportDefinitionName: 'TransactionRequestClass', reportName: name, reportFields: ['Request.RequestID'], timezone: zone, ...terms })).status).toBe(200)
    }
    const byInstant = new Map<number, string[]>()
    const expected = new Map<string, number[]>()
    for (const { zone, kind, name } of NAMES) {
      const runs = expectedRuns(zone, kind).filter((at) => at > START)
      expected.set(name, runs)
      for (const at of runs) byInstant.set(at, [...(byInstant.get(at) ?? []), name])
    }
    // The first sweep only schedules: each subscription's first window is PENDING.
    expect(await sweep()).toMatchObject({ synced: NAMES.length, queued: [] })

    const instants = [...byInstant.keys()].sort((a, b) => a - b)
    for (const at of instants) {
      setClock(at - 1)
      const early = await sweep()
      expect(early.queued, new Date(at - 1).toISOString()).toEqual([])
      setClock(at)
      const onTime = await sweep()
      expect(onTime.queued.map((q) => q.reportName).sort(), new Date(at).toISOString()).toEqual([...byInstant.get(at)!].sort())
      for (const q of onTime.queued) expect(q.end).toBe(at)
    }

    // Through the API: each subscription's reports are exactly its expected windows, each from the previous run.
    expect(instants.length).toBeGreaterThan(2500)
    // The loop kept the event loop busy past the keep-alive timeout: let the idle connections close before calling.
    await new Promise((resolve) => setTimeout(resolve, 100))
    for (const { name } of NAMES) {
      const runs = expected.get(name)!
      const path = `/reporting/v3/reports?startTime=2025-12-01T00:00:00Z&endTime=2027-01-02T00:00:00Z&timeQueryType=reportTimeFrame&reportName=${encodeURIComponent(name)}&reportStatus=QUEUED`
      const res = await signedCall(t, { method: 'GET', path, key: TESTREST_KEY })
      expect(res.status, name).toBe(200)
      const windows = res.json.reportSearchResults.map((r: { reportStartTime: string; reportEndTime: string }) => [Date.parse(r.reportStartTime), Date.parse(r.reportEndTime)])
      expect(windows.map((w: number[]) => w[1]), name).toEqual(runs)
      for (let i = 1; i < windows.length; i++) expect(windows[i][0], name).toBe(windows[i - 1][1])
    }
  }, 300_000)
})
