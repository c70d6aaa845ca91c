// Reporting's commands: `finapi transactions` (the store every report reads), `finapi reports` (instances, run here
// through the report job) and `finapi clock` (the sandbox's reporting time), each defined beside its module. The
// command tree registers them (src/cli/program.ts) and opens the database for them.
import type { Command } from 'commander'
import type { FeatureCommands } from '../platform/feature.js'
import { registerReportsCommands, type WithServices } from './reports/cli.js'
import { registerClockCommands, type ClockCommandServices } from './sandbox-clock/cli.js'
import { registerTransactionsCommands, type TransactionCommandDeps } from './transactions/cli.js'

/** What the commands use of reporting's services (ReportingServices). */
export interface ReportingCommandServices extends ClockCommandServices, TransactionCommandDeps {}

export const reportingCommands: FeatureCommands<ReportingCommandServices> = {
  register(program: Command, { run, clock }) {
    registerTransactionsCommands(program, (fn) => run((reporting) => fn(reporting)), () => clock.now())
    const withReporting: WithServices<ReportingCommandServices> = (fn) => run((reporting, db) => fn({ reporting, db }))
    registerReportsCommands(program, withReporting, clock)
    registerClockCommands(program, withReporting, clock)
  },
}
