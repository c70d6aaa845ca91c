// `finapi reports list|run|retry` and `finapi clock show|advance`: argument parsing, terminal progress and output
// around the reporting services. Generation here goes through the same job as on a server (claimed with a lease in
// this process), so a command and a running server never generate one report twice.
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'
import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/database.js'
import type { ReportStatus } from '../../platform/db/schema.js'
import { createJobs } from '../../platform/jobs/service.js'
import type { JobHandler } from '../../platform/jobs/types.js'
import type { ReportingServices } from '../feature.js'
import { listed } from '../scheduler/clock-routes.js'
import { enqueueGeneration, REPORT_JOB } from './queue.js'
import { REPORT_STATUSES } from './service.js'

export const REPORTS_USAGE = `  reports list [--org <id>] [--status <status>] [--limit <n>]
                              list reports, latest window first: id, organization, name, status, window, rows
  reports run <reportId>      generate a queued report now in this process (a crashed run is taken over once its
                              lease lapses); progress on a terminal
  reports retry <reportId>    queue a finished report (COMPLETED, NO_DATA, ERROR) again and generate it now
  clock show --org <id>       sandbox: an organization's reporting time
  clock advance --org <id> --to <time>
                              sandbox: move an organization's reporting clock forward to <time> (ISO 8601) and
                              generate every report due for it by then, in order, as the scheduler would have
`

export class ReportsUsageError extends Error {}

type Services = { reporting: ReportingServices; db: Db }
export type WithServices = <T>(fn: (services: Services) => Promise<T>) => Promise<T>

/** Progress rewritten in place on a terminal; nothing when stderr is piped. */
const progress = process.stderr.isTTY ? (text: string) => process.stderr.write(`\r${text}\x1b[K`) : undefined

function option(args: string[]) {
  try {
    return parseArgs({ args, options: { org: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, to: { type: 'string' } }, allowPositionals: true })
  } catch (err) {
    throw new ReportsUsageError((err as Error).message)
  }
}

/** Generates reports through the report job, in this process only (no other job kind is run here). */
function runner(services: Services, clock: Clock) {
  const { reporting, db } = services
  const jobs = createJobs({ db, clock, owner: `cli:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}` })
  const names = new Map<string, string>()
  const handler = reporting.generator((id, rows) => progress?.(`generating ${names.get(id) ?? id}: ${rows} rows`))
  jobs.register(REPORT_JOB, handler as JobHandler<never>, reporting.reportJobOptions)
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  /** Runs a queued report's job here, or waits for the process that holds it; returns the instance as it ended. */
  return async (reportId: string) => {
    for (;;) {
      const row = await reporting.reports.instance(reportId)
      if (!row) throw new ReportsUsageError(`no report with id ${reportId}`)
      names.set(row.id, row.report_name)
      if (row.status === 'PENDING') throw new ReportsUsageError(`report ${reportId} is PENDING: its window has not closed yet`)
      if (row.status !== 'QUEUED' && row.status !== 'RUNNING') return row
      // The job the report was queued with (the same key finds it), or a new one if it has gone.
      const id = await enqueueGeneration(db.kysely, jobs, row.id, row.queued_at ?? row.updated_at)
      const summary = await jobs.runJob(id)
      if (summary.succeeded + summary.failed + summary.lost === 0) await pause(500) // another process has it: wait
      else if (summary.failed > 0) throw new ReportsUsageError(`report ${reportId} failed this time: ${(await reporting.reports.instance(reportId))?.error ?? 'see the log'} (it will be tried again)`)
    }
  }
}

const line = (cells: (string | number | null)[]) => cells.map((c) => (c === null ? '-' : String(c))).join('\t')

export async function runReportsCommand(command: 'reports' | 'clock', args: string[], withServices: WithServices, clock: Clock): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = option(rest)
  const out = (text: string) => process.stdout.write(`${text}\n`)
  if (command === 'reports' && action === 'list') {
    const status = values.status?.toUpperCase() as ReportStatus | undefined
    if (status && !REPORT_STATUSES.includes(status)) throw new ReportsUsageError(`--status must be one of ${REPORT_STATUSES.join(', ')}`)
    const limit = values.limit === undefined ? 50 : Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new ReportsUsageError('--limit must be an integer from 1 to 10000')
    const rows = await withServices(({ reporting }) => reporting.reports.list({ organizationId: values.org, status, limit }))
    out(['id\torganization\tname\tstatus\tfrequency\twindow start\twindow end\trows\tbytes', ...rows.map((r) => line([r.id, r.organization_id, r.report_name, r.status, r.report_frequency, r.window_start, r.window_end, r.row_count, r.content_bytes]))].join('\n'))
    return
  }
  if (command === 'reports' && (action === 'run' || action === 'retry')) {
    const id = positionals[0]
    if (!id) throw new ReportsUsageError(`reports ${action} needs a report id (see reports list)`)
    const started = performance.now()
    const row = await withServices(async (services) => {
      if (action === 'retry') {
        const current = await services.reporting.reports.instance(id)
        if (!current) throw new ReportsUsageError(`no report with id ${id}`)
        if (current.status !== 'COMPLETED' && current.status !== 'NO_DATA' && current.status !== 'ERROR') throw new ReportsUsageError(`report ${id} is ${current.status}; only a finished report is retried`)
        await services.reporting.reports.retry(id)
      }
      return runner(services, clock)(id)
    })
    if (progress) process.stderr.write('\n')
    out(`Report ${row.id} (${row.report_name}) is ${row.status}${row.row_count ? `: ${row.row_count} rows, ${row.content_bytes} bytes` : ''}${row.error ? `: ${row.error}` : ''} (${((performance.now() - started) / 1000).toFixed(1)} s).`)
    return
  }
  if (command === 'clock' && (action === 'show' || action === 'advance')) {
    if (!values.org) throw new ReportsUsageError(`clock ${action} needs --org <id>`)
    if (action === 'show') {
      const state = await withServices(({ reporting }) => reporting.sandboxClock.read(values.org!))
      out(`Reporting time of ${state.organizationId}: ${state.now} (${state.offsetSeconds} s ahead of the server's clock).`)
      return
    }
    if (!values.to) throw new ReportsUsageError('clock advance needs --to <time> (ISO 8601, e.g. 2026-03-01T09:00:00Z)')
    await withServices(async (services) => {
      const { sandboxClock, scheduler } = services.reporting
      // A move that makes many reports due is caught up here, a slice at a time, each slice generated before the next
      // is queued (an organization has at most REPORT_MAX_QUEUED_PER_ORG reports in flight).
      const state = await sandboxClock.advance(values.org!, values.to!, { catchUp: 'caller' })
      const count = `${state.complete ? '' : 'more than '}${state.queued?.length ?? 0}`
      out(`Reporting time of ${state.organizationId} is now ${state.now}; ${count} reports came due.`)
      const run = runner(services, clock)
      let batch = state.queued ?? []
      for (let more = !state.complete; ; ) {
        for (const queued of batch) {
          const row = await run(queued.reportId)
          if (progress) process.stderr.write('\n')
          out(line([row.id, row.report_name, `${queued.reportStartTime} → ${queued.reportEndTime}`, row.status, row.row_count]))
        }
        if (!more) break
        const next = await scheduler.sweep({ organizationId: values.org! })
        if (next.queued.length === 0 && next.more) {
          out(`More reports are due for ${values.org}; they are queued as its reports in flight are generated (by a server, or finapi reports run).`)
          break
        }
        batch = next.queued.map(listed)
        more = next.more
      }
    })
    return
  }
  throw new ReportsUsageError(`unknown ${command} action: ${action ?? '(none)'}`)
}
