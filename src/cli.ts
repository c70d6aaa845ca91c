// The `finapi` command's entry (bin/finapi.js runs its build): builds the command tree (cli/program.ts), runs it,
// and turns what went wrong into an exit status and one line on stderr: 0 done (help and --version included), 1 a
// failure, 2 a usage error (commander has printed it, with the command's usage, through the output configured in
// program.ts). Only a bug prints a stack. The database, the services and the configuration's schema are loaded when
// a command needs them, so help and usage errors answer at once.
import { readFileSync } from 'node:fs'
import { CommanderError } from 'commander'
import type { CliContext } from './cli/context.js'
import { CliError } from './platform/cli/kit.js'
import { buildProgram } from './cli/program.js'
import { endProgressLine, showStatus } from './platform/cli/progress.js'
import type { Config } from './config.js'
import { systemClock } from './platform/clock.js'
import { DomainError } from './platform/errors.js'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** The configuration once parsed: a failure to start is described with its settings. */
let loaded: Config | undefined

const cli: CliContext = {
  config: async () => (loaded ??= (await import('./config.js')).loadConfig(process.env)),
  async withServices(fn) {
    const config = await cli.config()
    const [{ openDatabase }, { createLogger }, { createServices }, { prepareDatabase }] = await Promise.all([
      import('./platform/db/database.js'),
      import('./platform/logger.js'),
      import('./services.js'),
      import('./bootstrap.js'),
    ])
    const db = openDatabase(config.databaseUrl)
    // Log lines go to stderr, so a command's own output stays clean to pipe.
    const infrastructure = { db, clock: systemClock, logger: createLogger('warn', process.stderr) }
    try {
      const services = createServices(config, infrastructure)
      // A first run applies every migration and, in sandbox mode, generates the sandbox's data: seconds, not silence.
      const status = showStatus('preparing the database…')
      const applied = await prepareDatabase(config, infrastructure, services, { operator: true })
      status.clear()
      return await fn(services, db, applied)
    } finally {
      await db.close()
    }
  },
  clock: systemClock,
}

/** The exit status for what a command threw, having said why on stderr. */
async function failure(err: unknown): Promise<number> {
  endProgressLine()
  // Help and --version (0), or a usage error commander has already printed (2).
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2
  const say = (text: string) => process.stderr.write(`finapi: ${text}\n`)
  const [{ describeStartupFailure }, { ConfigError }] = await Promise.all([import('./startup-errors.js'), import('./config.js')])
  const startup = loaded && describeStartupFailure(err, loaded)
  if (startup !== undefined) say(startup)
  else if (err instanceof DomainError) say(err.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ') || err.kind)
  else if (err instanceof CliError || err instanceof ConfigError) say(err.message)
  else say(err instanceof Error ? (err.stack ?? err.message) : String(err))
  return 1
}

// A reader that stops early (`finapi keys list | head -1`) closes the pipe: the output is not wanted any more, which
// is no failure and no reason for a stack.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err
  process.exit(0)
})

buildProgram(cli, version)
  .parseAsync(process.argv.slice(2), { from: 'user' })
  .catch(async (err: unknown) => process.exit(await failure(err)))
