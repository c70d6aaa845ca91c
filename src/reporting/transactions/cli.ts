// `finapi transactions import|generate`: argument parsing and terminal progress around the service. The caller
// (src/cli.ts) opens the database and turns a thrown TransactionUsageError into its usage message.
import { parseArgs } from 'node:util'
import type { TransactionService } from './service.js'
import { DEFAULT_BATCH_LINES, formatOf, type ImportFormat } from './import.js'
import { MAX_PER_DAY } from './generator.js'

export const TRANSACTIONS_USAGE = `  transactions import <file> [--format ndjson|csv] [--batch-size N] [--from-line N]
                              load transactions (NDJSON or CSV, one per line), N lines (default ${DEFAULT_BATCH_LINES}) per
                              all-or-nothing batch; a bad line rejects its batch and names the line and field
  transactions generate --org <id> --days <n> --per-day <n> --seed <s> [--end YYYY-MM-DD]
                              store deterministic generated transactions ending on --end (default today, UTC)
`

export class TransactionUsageError extends Error {}

const int = (value: string | undefined, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new TransactionUsageError(`--${name} must be an integer from ${min} to ${max}`)
  return Number(value)
}

/** Progress rewritten in place on a terminal; nothing when stderr is piped. */
function progressLine(): ((text: string, done: boolean) => void) | undefined {
  if (!process.stderr.isTTY) return undefined
  return (text, done) => process.stderr.write(`\r${text}${done ? '\n' : ''}`)
}

export async function runTransactionsCommand(args: string[], withService: <T>(fn: (service: TransactionService) => Promise<T>) => Promise<T>, now: Date): Promise<void> {
  const [action, ...rest] = args
  let parsed
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        format: { type: 'string' },
        'batch-size': { type: 'string' },
        'from-line': { type: 'string' },
        org: { type: 'string' },
        days: { type: 'string' },
        'per-day': { type: 'string' },
        seed: { type: 'string' },
        end: { type: 'string' },
      },
      allowPositionals: true,
    })
  } catch (err) {
    throw new TransactionUsageError((err as Error).message)
  }
  const { values, positionals } = parsed
  const show = progressLine()
  if (action === 'import') {
    const path = positionals[0]
    if (!path) throw new TransactionUsageError('transactions import needs a file')
    const format = (values.format ?? formatOf(path)) as ImportFormat | undefined
    if (format !== 'ndjson' && format !== 'csv') throw new TransactionUsageError('say --format ndjson or --format csv (or name the file .ndjson / .csv)')
    const batchSize = int(values['batch-size'], 'batch-size', 1) ?? DEFAULT_BATCH_LINES
    const fromLine = int(values['from-line'], 'from-line', 1)
    const result = await withService((service) =>
      service.importFile(path, {
        format,
        batchSize,
        fromLine,
        onProgress: show && (({ lines, loaded, bytes, totalBytes }) => show(`line ${lines}, ${loaded} loaded${totalBytes ? ` (${Math.floor((100 * bytes) / totalBytes)}%)` : ''}`, false)),
      }),
    )
    show?.('', true)
    process.stdout.write(`Imported ${result.loaded} transactions from ${result.lines} lines in ${result.batches} batches.\n`)
  } else if (action === 'generate') {
    if (!values.org || !values.seed) throw new TransactionUsageError('transactions generate needs --org <id> and --seed <s>')
    const days = int(values.days, 'days', 1, 3660)
    const perDay = int(values['per-day'], 'per-day', 1, MAX_PER_DAY)
    if (days === undefined || perDay === undefined) throw new TransactionUsageError('transactions generate needs --days <n> and --per-day <n>')
    const end = values.end ?? now.toISOString().slice(0, 10)
    if (!/^\d{4}-\d{2}-\d{2}$/.test(end)) throw new TransactionUsageError('--end must be a date YYYY-MM-DD')
    const started = performance.now()
    const result = await withService((service) =>
      service.generate({ organizationId: values.org!, days, perDay, seed: values.seed!, end }, show && ((rows, total) => show(`stored ${rows}/${total}`, false))),
    )
    show?.('', true)
    const seconds = (performance.now() - started) / 1000
    const types = Object.entries(result.byType).map(([type, n]) => `${n} ${type}`).join(', ')
    process.stdout.write(`Stored ${result.rows} transactions for ${values.org} (${types}) in ${seconds.toFixed(1)} s.\n`)
  } else {
    throw new TransactionUsageError(`unknown transactions action: ${action ?? '(none)'}`)
  }
}
