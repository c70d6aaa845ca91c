// The `finapi` command's tree: serve, migrate, the operator's records (admin.ts), maintenance, prune, and each
// feature's commands (its descriptor's `commands`). Built on commander: well kept, no dependencies of its own, its own
// TypeScript types, subcommands each with their own --help, and exitOverride/configureOutput, through which a usage
// error becomes one line plus the command's usage (exit 2) rather than a process.exit from inside a parser. What a
// command needs to do its work is imported when it runs: help and usage errors load no more than the tree.
import { Command } from 'commander'
import { bankingCommands } from '../banking/cli.js'
import { reportingCommands } from '../reporting/cli.js'
import { webhooksCommands } from '../webhooks/cli.js'
import { requestLogCommands } from '../request-log/cli.js'
import { registerAdminCommands } from './admin.js'
import { useOverviewHelp } from './help.js'
import { finishCommands, group, say, suggestion, usageError } from '../platform/cli/kit.js'
import type { FeatureCommands } from '../platform/feature.js'
import type { CliContext } from './context.js'

const ABOUT = `Each command has its own help (finapi keys create --help). Every command reads the
server's environment (DATABASE_URL, MODE, SECRETS_KEY, …) and brings the database up to
date before it runs. Log lines and progress go to stderr, so the output stays clean to
pipe. Exit status: 0 done, 1 failed (one line says why), 2 a usage error. See docs/cli.md`

const SUMMARIES = { on: 'answer every /v2 call with API-522', off: 'answer normally again', status: 'whether maintenance is on' } as const

/**
 * Every feature's commands, in the composition root's order: the `commands` of the features' descriptors, which
 * test/features.test.ts checks this list against. Imported here on their own rather than read from the built
 * features, which would load every feature's code (and need a configuration) to show any help.
 */
export const FEATURE_COMMANDS: readonly FeatureCommands<never>[] = [bankingCommands, reportingCommands, webhooksCommands, requestLogCommands]

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

  for (const commands of FEATURE_COMMANDS) {
    commands.register(program, {
      clock: cli.clock,
      // A command runs with the services of the feature whose descriptor carries it.
      run: (fn) =>
        cli.withServices((services, db) => {
          const feature = services.features.find((f) => f.commands === commands)
          if (!feature) throw new Error('a feature\'s commands are registered but the feature is not in the composition root')
          return fn(feature.services as never, db)
        }),
    })
  }

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
