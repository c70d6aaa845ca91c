// The `finapi` command: serve, migrate, application keys and the maintenance switch.
import { parseArgs } from 'node:util'
import { readFile } from 'node:fs/promises'
import { createApplicationService } from './applications/service.js'
import { ImportFile } from './banking/import-schema.js'
import { ImportError, importData, type Progress } from './banking/importer.js'
import { prepareDatabase } from './bootstrap.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { systemClock } from './platform/clock.js'
import { openDatabase, type Db } from './platform/db/database.js'
import { migrateToLatest } from './platform/db/migrate.js'
import { createMaintenanceSwitch } from './platform/maintenance.js'
import { serve } from './server.js'

const USAGE = `Usage: finapi <command>

  serve                       start the HTTP server (MODE, HOST, PORT, DATABASE_URL, ... from the environment)
  migrate                     apply database migrations and exit
  keys create --name <name>   create an application key (printed once; only its hash is stored)
  keys list                   list application keys
  keys revoke <id>            revoke an application key
  maintenance on|off|status   switch every server on this database to API-522 maintenance answers, or back
  import <file.json>          load customers, credentials, accounts and exchange rates, all or nothing
  import --schema             print the JSON Schema of the import file
`

class UsageError extends Error {}

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl)
  try {
    await prepareDatabase(config, db, systemClock)
    return await fn(db)
  } finally {
    await db.close()
  }
}

async function keys(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { name: { type: 'string' } }, allowPositionals: true })
  const [action, id] = positionals
  await withDb(config, async (db) => {
    const service = createApplicationService({ db, clock: systemClock })
    if (action === 'create') {
      if (!values.name) throw new UsageError('keys create needs --name <name>')
      const { application, key } = await service.create(values.name)
      process.stdout.write(`Created application ${application.id} (${application.name}).\n`)
      process.stdout.write(`Key (shown once, store it now): ${key}\n`)
    } else if (action === 'list') {
      const rows = await service.list()
      process.stdout.write(['id\tname\tkey prefix\tstatus\tcreated', ...rows.map((a) => `${a.id}\t${a.name}\t${a.keyPrefix}…\t${a.status}\t${a.createdAt}`)].join('\n') + '\n')
    } else if (action === 'revoke') {
      if (!id) throw new UsageError('keys revoke needs an application id (see keys list)')
      if (!(await service.revoke(id))) throw new UsageError(`no active application with id ${id}`)
      process.stdout.write(`Revoked application ${id}.\n`)
    } else {
      throw new UsageError(`unknown keys action: ${action ?? '(none)'}`)
    }
  })
}

async function maintenance(config: Config, action: string | undefined): Promise<void> {
  await withDb(config, async (db) => {
    const toggle = createMaintenanceSwitch({ db, clock: systemClock })
    if (action === 'on' || action === 'off') await toggle.set(action === 'on')
    else if (action === 'status') await toggle.refresh()
    else throw new UsageError(`maintenance takes on, off or status, not ${action ?? '(none)'}`)
    process.stdout.write(`Maintenance is ${toggle.isOn() ? 'on' : 'off'}.\n`)
  })
}

async function importFile(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { schema: { type: 'boolean' } }, allowPositionals: true })
  if (values.schema) {
    process.stdout.write(JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...ImportFile }, null, 2) + '\n')
    return
  }
  const path = positionals[0]
  if (!path) throw new UsageError('import needs a file: finapi import <file.json>')
  let data: unknown
  try {
    data = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw new UsageError(`cannot read ${path} as JSON: ${(err as Error).message}`)
  }
  // Progress goes to a terminal only, rewritten in place; piped output stays clean.
  const progress: Progress = process.stderr.isTTY
    ? (phase, done, total) => process.stderr.write(`\r${phase} ${done}/${total}${done === total ? '\n' : ''}`)
    : () => {}
  await withDb(config, async (db) => {
    const summary = await importData({ db, clock: systemClock }, data, progress)
    process.stdout.write(
      `Imported ${summary.customers} customers, ${summary.credentials} credentials, ${summary.accounts} accounts, ${summary.exchangeRates} exchange rates.\n`,
    )
  })
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE)
    return
  }
  const config = loadConfig(process.env)
  switch (command) {
    case 'serve':
      return serve(config)
    case 'migrate':
      return withDb(config, async (db) => {
        const applied = await migrateToLatest(db)
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n')
      })
    case 'keys':
      return keys(config, rest)
    case 'maintenance':
      return maintenance(config, rest[0])
    case 'import':
      return importFile(config, rest)
    default:
      throw new UsageError(`unknown command: ${command}`)
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ImportError) {
    process.stderr.write(`finapi: import rejected, nothing was loaded: ${err.message}\n`)
  } else if (err instanceof ConfigError || err instanceof UsageError) {
    process.stderr.write(`finapi: ${err.message}\n`)
    if (err instanceof UsageError) process.stderr.write(`\n${USAGE}`)
  } else {
    process.stderr.write(`finapi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  }
  process.exit(1)
})
