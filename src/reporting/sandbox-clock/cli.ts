// `finapi clock show|advance`: the sandbox clock's commands. A move generates what came due here, through the same
// report job as a server (reports/cli.ts), so a command and a running server never generate one report twice.
import type { Command } from 'commander'
import { group, say } from '../../platform/cli/kit.js'
import type { Clock } from '../../platform/clock.js'
import { line, runner, type ReportCommandServices, type WithServices } from '../reports/cli.js'
import type { Scheduler } from '../scheduler/service.js'
import { listed, type SandboxClock } from './service.js'

/** What the clock commands use of reporting's services (ReportingServices): the report commands' and the clocks. */
export interface ClockCommandServices extends ReportCommandServices {
  sandboxClock: SandboxClock
  scheduler: Scheduler
}

export function registerClockCommands(program: Command, withServices: WithServices<ClockCommandServices>, clock: Clock): void {
  const sandboxClock = group(program, 'clock', "sandbox: an organization's reporting time, which may be moved forward to make reports come due")
  sandboxClock
    .command('show')
    .summary("sandbox: an organization's reporting time")
    .usage('--org <id>')
    .description("sandbox: an organization's reporting time")
    .requiredOption('--org <id>', 'the organization')
    .action(async (options: { org: string }) => {
      const state = await withServices(({ reporting }) => reporting.sandboxClock.read(options.org))
      say(`Reporting time of ${state.organizationId}: ${state.now} (${state.offsetSeconds} s ahead of the server's clock).`)
    })
  sandboxClock
    .command('advance')
    .summary('sandbox: move it forward; make reports due')
    .usage('--org <id> --to <time>')
    .description("sandbox: move an organization's reporting clock forward to <time> and generate every report due for it by then, in order, as the scheduler would have")
    .requiredOption('--org <id>', 'the organization')
    .requiredOption('--to <time>', 'the new reporting time, ISO 8601 (e.g. 2026-03-01T09:00:00Z)')
    .action(async (options: { org: string; to: string }) => {
      await withServices(async (services) => {
        const { sandboxClock, scheduler } = services.reporting
        // A move that makes many reports due is caught up here, a slice at a time, each slice generated before the
        // next is queued (an organization has at most REPORT_MAX_QUEUED_PER_ORG reports in flight).
        const state = await sandboxClock.advance(options.org, options.to, { catchUp: 'caller' })
        const count = `${state.complete ? '' : 'more than '}${state.queued?.length ?? 0}`
        say(`Reporting time of ${state.organizationId} is now ${state.now}; ${count} reports came due.`)
        const generate = await runner(services, clock)
        let batch = state.queued ?? []
        for (let more = !state.complete; ; ) {
          for (const queued of batch) {
            const row = await generate(queued.reportId)
            say(line([row.id, row.report_name, `${queued.reportStartTime} → ${queued.reportEndTime}`, row.status, row.row_count]))
          }
          if (!more) break
          const next = await scheduler.sweep({ organizationId: options.org })
          if (next.queued.length === 0 && next.more) {
            say(`More reports are due for ${options.org}; they are queued as its reports in flight are generated (by a server, or finapi reports run).`)
            break
          }
          batch = next.queued.map(listed)
          more = next.more
        }
      })
    })
}
