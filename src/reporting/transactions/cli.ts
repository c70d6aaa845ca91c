// `finapi transactions import|generate`: the commands, their options and a progress bar around the service. The
// command tree opens the database for them (reporting/cli.ts registers them).
import { InvalidArgumentError, Option, type Command } from 'commander'
import { createProgress, bytes } from '../../platform/cli/progress.js'
import { CliError, group, integer, say, usageError } from '../../platform/cli/kit.js'
import type { TransactionService } from './service.js'
import type { ImportFormat } from './import.js'
import { MAX_PER_DAY } from './generator.js'

export interface TransactionCommandDeps {
  transactions: TransactionService
  /** Whether an organization exists: generated rows for an unknown one would be rows no report ever shows. */
  organizationExists(id: string): Promise<boolean>
}

/**
 * The import service's DEFAULT_BATCH_LINES, which the help shows (test/cli.test.ts checks they agree): importing the
 * service for a constant would load all it needs whenever any help is shown.
 */
const DEFAULT_BATCH_LINES = 2_000

export type WithTransactions = <T>(fn: (deps: TransactionCommandDeps) => Promise<T>) => Promise<T>

const date = (value: string): string => {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw new InvalidArgumentError('It must be a date YYYY-MM-DD.')
  return value
}

export function registerTransactionsCommands(program: Command, withTransactions: WithTransactions, today: () => Date): void {
  const transactions = group(program, 'transactions', 'the transactions every report reads: load them from a file, or generate them')

  const load = transactions
    .command('import')
    .summary('load transactions from NDJSON or CSV')
    .usage('<file> [--format ndjson|csv] [--batch-size N] [--from-line N]')
    .description(`load transactions (NDJSON or CSV, one per line), N lines (default ${DEFAULT_BATCH_LINES}) per all-or-nothing batch; a bad line rejects its batch and names the line and field`)
    .argument('<file>', 'the file; its format follows the extension (.ndjson, .jsonl, .csv) unless --format says')
    .addOption(new Option('--format <format>', 'the format of the file').choices(['ndjson', 'csv']))
    .option('--batch-size <N>', `lines per all-or-nothing batch (default ${DEFAULT_BATCH_LINES})`, integer(1))
    .option('--from-line <N>', 'skip the data lines before line N (continue after a rejected batch)', integer(1))
    .action(async (path: string, options: { format?: ImportFormat; batchSize?: number; fromLine?: number }) => {
      const { formatOf, TransactionImportError } = await import('./import.js')
      const format = options.format ?? formatOf(path)
      if (format === undefined) usageError(load, `cannot tell the format of ${path}: say --format ndjson or --format csv (or name the file .ndjson or .csv)`)
      const result = await withTransactions(async ({ transactions: service }) => {
        const progress = createProgress('importing', undefined, { format: bytes })
        const imported = await service
          .importFile(path, {
            format,
            batchSize: options.batchSize ?? DEFAULT_BATCH_LINES,
            fromLine: options.fromLine,
            onProgress: ({ bytes: read, totalBytes }) => progress.update(read, totalBytes),
          })
          .catch((err: unknown) => {
            throw err instanceof TransactionImportError ? new CliError(`transactions import rejected at ${err.message}`) : err
          })
        progress.finish()
        return imported
      })
      say(`Imported ${result.loaded} transactions from ${result.lines} lines in ${result.batches} batches.`)
    })

  transactions
    .command('generate')
    .summary('store deterministic generated transactions')
    .usage('--org <id> --days <n> --per-day <n> --seed <s> [--end YYYY-MM-DD]')
    .description(
      'store deterministic generated transactions for an organization: the same options give the same rows on every machine, exactly ' +
        '--per-day a day, ending on --end. Run again with the same options, it stores only what an earlier run did not',
    )
    .requiredOption('--org <id>', 'the organization (see finapi orgs list)')
    .requiredOption('--days <n>', 'how many days', integer(1, 3660))
    .requiredOption('--per-day <n>', 'transactions a day', integer(1, MAX_PER_DAY))
    .requiredOption('--seed <s>', 'any text: the same seed gives the same rows')
    .option('--end <date>', 'the last day, YYYY-MM-DD (default: today, UTC)', date)
    .action(async (options: { org: string; days: number; perDay: number; seed: string; end?: string }) => {
      const end = options.end ?? today().toISOString().slice(0, 10)
      const started = performance.now()
      const result = await withTransactions(async ({ transactions: service, organizationExists }) => {
        if (!(await organizationExists(options.org))) throw new CliError(`no organization ${options.org}: create it with finapi orgs create, or see finapi orgs list`)
        const progress = createProgress('generating', options.days * options.perDay, { unit: 'rows' })
        const stored = await service.generate({ organizationId: options.org, days: options.days, perDay: options.perDay, seed: options.seed, end }, (rows, total) => progress.update(rows, total))
        progress.finish()
        return stored
      })
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      if (result.rows === 0) {
        say(`Stored no transactions for ${options.org}: the ${result.skipped} of seed ${options.seed} (${options.days} days of ${options.perDay} ending ${end}) were stored by an earlier run.`)
        return
      }
      const types = Object.entries(result.byType).map(([type, n]) => `${n} ${type}`).join(', ')
      const earlier = result.skipped > 0 ? `; the first ${result.skipped} were stored by an earlier run` : ''
      say(`Stored ${result.rows} transactions for ${options.org} (${types}) in ${seconds} s${earlier}.`)
    })
}
