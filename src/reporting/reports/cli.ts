// `finapi reports list|run|retry`: the commands, their options, terminal progress and output around the reporting
// services (`finapi clock`, the sandbox clock's, is sandbox-clock/cli.ts). Generation here goes through the same job as on a server (claimed with a lease in
// this process), so a command and a running server never generate one report twice.
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Command } from 'commander'
import { CliError, group, integer, JSON_DESCRIPTION, JSON_FLAG, oneOf, printRows, say } from '../../platform/cli/kit.js'
import { createProgress, type Progress } from '../../platform/cli/progress.js'
import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/database.js'
import type { ReportStatus } from '../tables.js'
import type { JobHandler } from '../../platform/jobs/types.js'
import { enqueueGeneration, REPORT_JOB, type ReportJob } from './queue.js'
import { REPORT_STATUSES, type ReportsService } from './service.js'

/** What the report commands use of reporting's services (ReportingServices). */
export interface ReportCommandServices {
  reports: ReportsService
  generator(onProgress?: (instanceId: string, rows: number) => void): JobHandler<ReportJob>
  readonly reportJobOptions: { leaseMs: number; maxAttempts: number }
}

type Services<R> = { reporting: R; db: Db }
export type WithServices<R extends ReportCommandServices = ReportCommandServices> = <T>(fn: (services: Services<R>) => Promise<T>) => Promise<T>

/** Generates reports through the report job, in this process only (no other job kind is run here). */
export async function runner(services: Services<ReportCommandServices>, clock: Clock) {
  const { reporting, db } = services
  const { createJobs } = await import('../../platform/jobs/service.js')
  const jobs = createJobs({ db, clock, owner: `cli:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}` })
  const names = new Map<string, string>()
  // A report's row count is known once it is written: the bar counts rows and their rate, with no total.
  const bars = new Map<string, Progress>()
  const bar = (id: string) => bars.get(id) ?? bars.set(id, createProgress(`generating ${names.get(id) ?? id}`, undefined, { unit: 'rows' })).get(id)!
  const handler = reporting.generator((id, rows) => bar(id).update(rows))
  jobs.register(REPORT_JOB, handler as JobHandler<never>, reporting.reportJobOptions)
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  /** Runs a queued report's job here, or waits for the process that holds it; returns the instance as it ended. */
  return async (reportId: string) => {
    for (;;) {
      const row = await reporting.reports.instance(reportId)
      if (!row) throw new CliError(`no report with id ${reportId}`)
      names.set(row.id, row.report_name)
      if (row.status === 'PENDING') throw new CliError(`report ${reportId} is PENDING: its window has not closed yet`)
      if (row.status !== 'QUEUED' && row.status !== 'RUNNING') {
        bars.get(row.id)?.finish()
        return row
      }
      // The job the report was queued with (the same key finds it), or a new one if it has gone.
      const id = await enqueueGeneration(db.kysely, jobs, row.id, row.queued_at ?? row.updated_at)
      const summary = await jobs.runJob(id)
      if (summary.succeeded + summary.failed + summary.lost === 0) await pause(500) // another process has it: wait
      else if (summary.failed > 0) throw new CliError(`report ${reportId} failed this time: ${(await reporting.reports.instance(reportId))?.error ?? 'see the log'} (it will be tried again)`)
    }
  }
}

export const line = (cells: (string | number | null)[]) => cells.map((c) => (c === null ? '-' : String(c))).join('\t')
const FINISHED: readonly ReportStatus[] = ['COMPLETED', 'NO_DATA', 'ERROR']

export function registerReportsCommands(program: Command, withServices: WithServices, clock: Clock): void {
  const reports = group(program, 'reports', 'report instances: list them, generate a queued one now, run a finished one again')
  reports
    .command('list')
    .summary('list report instances')
    .usage('[--org <id>] [--status <status>] [--limit <n>] [--json]')
    .description('list reports, latest window first: id, organization, name, status, frequency, window, rows, bytes')
    .option('--org <id>', "only this organization's")
    .option('--status <status>', `only those in this status: ${REPORT_STATUSES.join(', ')}`, oneOf(REPORT_STATUSES))
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 50)
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (options: { org?: string; status?: ReportStatus; limit: number; json?: boolean }) => {
      const rows = await withServices(({ reporting }) => reporting.reports.list({ organizationId: options.org, status: options.status, limit: options.limit }))
      printRows(rows, options.json, ['id', 'organization', 'name', 'status', 'frequency', 'window start', 'window end', 'rows', 'bytes'], (r) => [r.id, r.organization_id, r.report_name, r.status, r.report_frequency, r.window_start, r.window_end, r.row_count, r.content_bytes], (r) => ({
        id: r.id,
        organizationId: r.organization_id,
        reportName: r.report_name,
        status: r.status,
        frequency: r.report_frequency,
        windowStart: r.window_start,
        windowEnd: r.window_end,
        rows: r.row_count,
        bytes: r.content_bytes,
        ...(r.error ? { error: r.error } : {}),
      }))
    })

  const run = async (id: string, retry: boolean) => {
    const started = performance.now()
    const row = await withServices(async (services) => {
      if (retry) {
        const current = await services.reporting.reports.instance(id)
        if (!current) throw new CliError(`no report with id ${id}`)
        if (!FINISHED.includes(current.status)) throw new CliError(`report ${id} is ${current.status}; only a finished report is retried`)
        await services.reporting.reports.retry(id)
      }
      return (await runner(services, clock))(id)
    })
    say(`Report ${row.id} (${row.report_name}) is ${row.status}${row.row_count ? `: ${row.row_count} rows, ${row.content_bytes} bytes` : ''}${row.error ? `: ${row.error}` : ''} (${((performance.now() - started) / 1000).toFixed(1)} s).`)
  }
  reports
    .command('run')
    .summary('generate a queued report now')
    .description('generate a queued report now in this process (a crashed run is taken over once its lease lapses); progress on a terminal')
    .argument('<reportId>', 'the report (see finapi reports list)')
    .action((id: string) => run(id, false))
  reports
    .command('retry')
    .summary('generate a finished report again')
    .description('queue a finished report (COMPLETED, NO_DATA, ERROR) again and generate it now')
    .argument('<reportId>', 'the report (see finapi reports list)')
    .action((id: string) => run(id, true))
}
