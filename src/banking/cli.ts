// `finapi import`: load customers, credentials, accounts and exchange rates from a JSON file, all or nothing, with a
// progress bar per phase; or print the file's JSON Schema. The command tree registers it (src/cli/program.ts) and
// opens the database for it; the importer is loaded when it runs.
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { CliError, say, usageError } from '../platform/cli/kit.js'
import { createProgress, type Progress } from '../platform/cli/progress.js'
import type { FeatureCommands } from '../platform/feature.js'
import type { ImportSummary, Progress as ImportProgress } from './accounts/import.js'

/** What each phase of an import counts. */
const UNITS = { validating: 'customers', hashing: 'secrets', writing: 'rows' } as const

/** What the command uses of banking's services (BankingServices). */
export interface BankingCommandServices {
  importData(data: unknown, onProgress?: ImportProgress): Promise<ImportSummary>
}

export const bankingCommands: FeatureCommands<BankingCommandServices> = {
  register(program: Command, { run }) {
    const load = program
      .command('import')
      .summary('load customers and accounts from a JSON file')
      .usage('<file.json> | --schema')
      .description('load customers, credentials, accounts and exchange rates from a JSON file, all or nothing; or print the JSON Schema of that file')
      .argument('[file.json]', 'the file to load')
      .option('--schema', 'print the JSON Schema of the import file instead')
      .action(async (path: string | undefined, options: { schema?: boolean }) => {
        if (options.schema) {
          const { ImportFile } = await import('./accounts/import-schema.js')
          return say(JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...ImportFile }, null, 2))
        }
        if (path === undefined) usageError(load, 'import needs a file: finapi import <file.json> (or --schema)')
        let data: unknown
        try {
          data = JSON.parse(await readFile(path, 'utf8'))
        } catch (err) {
          throw new CliError(`cannot read ${path} as JSON: ${(err as Error).message}`)
        }
        const { ImportError } = await import('./accounts/import.js')
        await run(async (banking) => {
          // One bar per phase (validating, hashing secrets, writing), each ending on a line of its own.
          let bar: { phase: string; progress: Progress } | undefined
          const summary = await banking
            .importData(data, (phase, done, total) => {
              if (bar?.phase !== phase) {
                bar?.progress.finish()
                bar = { phase, progress: createProgress(phase, total, { unit: UNITS[phase] }) }
              }
              bar.progress.update(done, total)
            })
            .catch((err: unknown) => {
              throw err instanceof ImportError ? new CliError(`import rejected, nothing was loaded: ${err.message}`) : err
            })
          bar?.progress.finish()
          say(`Imported ${summary.customers} customers, ${summary.credentials} credentials, ${summary.accounts} accounts, ${summary.exchangeRates} exchange rates.`)
        })
      })
  },
}
