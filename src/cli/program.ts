// The `finapi` command's tree: serve, migrate, the operator's records (admin.ts), maintenance, prune, import, and
// the reporting and webhook commands their modules define. Built on commander: well kept, no dependencies of its own,
// its own TypeScript types, subcommands each with their own --help, and exitOverride/configureOutput, through which
// a usage error becomes one line plus the command's usage (exit 2) rather than a process.exit from inside a parser.
// What a command needs to do its work is imported when it runs: help and usage errors load no more than the tree.
import { readFile } from 'node:fs/promises'
import { Command } from 'commander'
import { registerReportsCommands, type WithServices } from '../reporting/reports/cli.js'
import { registerClockCommands } from '../reporting/sandbox-clock/cli.js'
import { registerTransactionsCommands } from '../reporting/transactions/cli.js'
import { registerWebhooksCommands } from '../webhooks/cli.js'
import { registerAdminCommands } from './admin.js'
import { useOverviewHelp } from './help.js'
import { CliError, finishCommands, group, say, suggestion, usageError } from '../platform/cli/kit.js'
import type { CliContext } from './context.js'
import { createProgress, type Progress } from '../platform/cli/progress.js'

const ABOUT = `Each command has its own help (finapi keys create --help). Every command reads the
server's environment (DATABASE_URL, MODE, SECRETS_KEY, …) and brings the database up to
date before it runs. Log lines and progress go to stderr, so the output stays clean to
pipe. Exit status: 0 done, 1 failed (one line says why), 2 a usage error. See docs/cli.md`

const SUMMARIES = { on: 'answer every /v2 call with API-522', off: 'answer normally again', status: 'whether maintenance is on' } as const

/** What each phase of a banking import counts. */
const UNITS = { validating: 'customers', hashing: 'secrets', writing: 'rows' } as const

export function buildProgram(cli: CliContext, version: string): Command {
  const program = new Command('finapi')
    .description('The finapi server (banking and merchant reporting APIs, OAuth 2.0, signed webhooks) and its operator commands.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    // Our own help command (below): commander's prints the whole help to stderr for an unknown command.
    .helpCommand(false)
    .allowExcessArguments(true)
    // Set before any subcommand is added: each inherits them.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`finapi: ${text.trimEnd().replace(/\n+/g, ' ')}\n`) })
    .addHelpText('after', `\n${ABOUT}`)
  // Bare `finapi` prints the overview; an unknown command is a usage error naming the nearest one.
  program.action(() => {
    const [given] = program.args
    if (given === undefined) return program.outputHelp()
    const near = suggestion(given, program.commands.map((c) => c.name()))
    usageError(program, `unknown command '${given}'${near ? ` (Did you mean ${near}?)` : ''}`)
  })

  program
    .command('serve')
    .summary('start the HTTP server')
    .description('start the HTTP server (MODE, HOST, PORT, DATABASE_URL, … from the environment); SIGTERM or SIGINT stops it gracefully')
    .action(async () => (await import('../server.js')).serve(await cli.config()))
  program
    .command('migrate')
    .summary('apply database migrations and exit')
    .description('apply database migrations and exit (the server also applies them at start)')
    .action(() =>
      // The migrations are applied as the database is opened; this reports which were.
      cli.withServices(async (_services, _db, applied) => say(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.')),
    )

  registerAdminCommands(program, cli)

  const maintenance = group(program, 'maintenance', 'switch every server on this database to API-522 maintenance answers on /v2, or back')
  for (const [state, description] of [
    ['on', 'every server on this database answers every /v2 call with API-522 (within 5 s)'],
    ['off', 'back to normal answers'],
    ['status', 'whether maintenance is on'],
  ] as const) {
    maintenance
      .command(state)
      .description(description)
      .summary(SUMMARIES[state])
      .action(() =>
        cli.withServices(async ({ maintenance: toggle }) => {
          if (state === 'status') await toggle.refresh()
          else await toggle.set(state === 'on')
          say(`Maintenance is ${toggle.isOn() ? 'on' : 'off'}.`)
        }),
      )
  }

  program
    .command('prune')
    .summary('delete expired sessions, tokens, jobs… now')
    .description('run every housekeeping task once now (expired sessions, OAuth tokens, codes and consents, finished jobs, …; servers also do it every PRUNE_INTERVAL_SECONDS) and print how many rows went')
    .action(() =>
      cli.withServices(async ({ housekeeping }) => {
        const counts = await housekeeping.runOnce()
        say(`Deleted: ${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(', ')}.`)
      }),
    )

  const load = program
    .command('import')
    .summary('load customers and accounts from a JSON file')
    .usage('<file.json> | --schema')
    .description('load customers, credentials, accounts and exchange rates from a JSON file, all or nothing; or print the JSON Schema of that file')
    .argument('[file.json]', 'the file to load')
    .option('--schema', 'print the JSON Schema of the import file instead')
    .action(async (path: string | undefined, options: { schema?: boolean }) => {
      if (options.schema) {
        const { ImportFile } = await import('../banking/accounts/import-schema.js')
        return say(JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...ImportFile }, null, 2))
      }
      if (path === undefined) usageError(load, 'import needs a file: finapi import <file.json> (or --schema)')
      let data: unknown
      try {
        data = JSON.parse(await readFile(path, 'utf8'))
      } catch (err) {
        throw new CliError(`cannot read ${path} as JSON: ${(err as Error).message}`)
      }
      const [{ importData }, { createIdentityImport }, { secretsKey }] = await Promise.all([import('../banking/accounts/import.js'), import('../identity/import.js'), cli.config()])
      await cli.withServices(async (_services, db) => {
        // One bar per phase (validating, hashing secrets, writing), each ending on a line of its own.
        let bar: { phase: string; progress: Progress } | undefined
        const summary = await importData({ db, clock: cli.clock, identity: createIdentityImport(secretsKey) }, data, (phase, done, total) => {
          if (bar?.phase !== phase) {
            bar?.progress.finish()
            bar = { phase, progress: createProgress(phase, total, { unit: UNITS[phase] }) }
          }
          bar.progress.update(done, total)
        })
        bar?.progress.finish()
        say(`Imported ${summary.customers} customers, ${summary.credentials} credentials, ${summary.accounts} accounts, ${summary.exchangeRates} exchange rates.`)
      })
    })

  registerTransactionsCommands(
    program,
    (fn) =>
      cli.withServices(async (services, db) => {
        const { createTransactionService } = await import('../reporting/transactions/service.js')
        return fn({ transactions: createTransactionService({ db, clock: cli.clock }), organizationExists: async (id) => (await services.organizations.find(id)) !== undefined })
      }),
    () => cli.clock.now(),
  )
  const withReporting: WithServices = (fn) => cli.withServices((services, db) => fn({ reporting: services.reporting, db }))
  registerReportsCommands(program, withReporting, cli.clock)
  registerClockCommands(program, withReporting, cli.clock)
  registerWebhooksCommands(program, (fn) => cli.withServices((services) => fn(services.webhooks)))

  const help = program
    .command('help')
    .summary('show help for a command: finapi help keys create')
    .description('show help for a command, as its --help does')
    .argument('[command...]', 'the command')
    .action((words: string[]) => {
      let command = program
      for (const word of words) {
        const sub = command.commands.find((c) => c.name() === word)
        if (!sub) usageError(help, `unknown command '${words.join(' ')}'`)
        command = sub
      }
      command.outputHelp()
    })

  useOverviewHelp(program)
  finishCommands(program)
  return program
}
