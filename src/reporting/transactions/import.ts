// `finapi transactions import`: NDJSON or CSV, one transaction per line, streamed. The file is taken in batches
// of `batchSize` lines: each batch is checked whole and then written in one transaction, so a bad line rejects
// its whole batch (and the import stops there); earlier batches stay loaded, and the error says which lines
// those were, so the file can be fixed and loaded again from the failed batch on (`fromLine`).
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'
import type { Readable } from 'node:stream'
import type { Db } from '../../platform/db/database.js'
import type { Transaction } from './catalog.js'
import { CsvError, parseCsvLine } from './csv.js'
import * as repo from './repository.js'
import { LineError, csvColumns, csvRecord, toTransaction, type CsvColumn } from './schemas.js'

export type ImportFormat = 'ndjson' | 'csv'

/** Lines per batch and per write transaction: short, for a server writing to the same SQLite database (generate.ts). */
export const DEFAULT_BATCH_LINES = 2_000

export class TransactionImportError extends Error {
  override name = 'TransactionImportError'
  constructor(
    readonly line: number,
    readonly field: string,
    readonly reason: string,
    /** Lines of the file (data lines, blank ones included) written by earlier batches. */
    readonly loadedThroughLine: number,
    readonly loaded: number,
  ) {
    super(
      `line ${line}${field ? `, field ${field}` : ''}: ${reason}; ` +
        (loaded > 0 ? `its batch was not loaded; ${loaded} transactions through line ${loadedThroughLine} were (continue with --from-line ${loadedThroughLine + 1})` : 'nothing was loaded'),
    )
  }
}

/** Progress is told of every this many lines as well as of every batch: a large batch takes a while to read. */
const PROGRESS_LINES = 1000

export interface ImportOptions {
  format: ImportFormat
  batchSize?: number
  /** Skip the data lines before this line number (the CSV header is always read). */
  fromLine?: number
  onProgress?: (progress: { lines: number; loaded: number; bytes: number; totalBytes: number | undefined }) => void
}

export interface ImportResult {
  lines: number
  loaded: number
  batches: number
}

export function formatOf(path: string): ImportFormat | undefined {
  if (/\.(nd)?jsonl?$/i.test(path) || /\.ndjson$/i.test(path)) return 'ndjson'
  if (/\.csv$/i.test(path)) return 'csv'
  return undefined
}

export async function importTransactionFile(db: Pick<Db, 'kysely' | 'dialect'>, path: string, options: ImportOptions): Promise<ImportResult> {
  const totalBytes = (await stat(path)).size
  return importTransactions(db, createReadStream(path), { ...options, totalBytes })
}

export async function importTransactions(db: Pick<Db, 'kysely' | 'dialect'>, input: Readable, options: ImportOptions & { totalBytes?: number }): Promise<ImportResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_LINES
  const fromLine = options.fromLine ?? 1
  let columns: CsvColumn[] | undefined
  let batch: { line: number; transaction: Transaction }[] = []
  let lastLine = 0
  let loadedThroughLine = fromLine - 1
  let loaded = 0
  let batches = 0
  let bytes = 0
  const report = () => options.onProgress?.({ lines: lastLine, loaded, bytes, totalBytes: options.totalBytes })

  const flush = async () => {
    if (batch.length > 0) {
      await writeBatch(db, batch, loadedThroughLine, loaded)
      loaded += batch.length
      batches++
    }
    loadedThroughLine = lastLine
    batch = []
    report()
  }

  try {
    for await (const { line, number, size } of lines(input)) {
      bytes += size
      lastLine = number
      if (options.format === 'csv' && columns === undefined) {
        columns = parse(number, line, loadedThroughLine, loaded, () => csvColumns(parseCsvLine(line)))
        loadedThroughLine = Math.max(loadedThroughLine, number)
        continue
      }
      if (number < fromLine || line.trim() === '') continue
      const transaction = parse(number, line, loadedThroughLine, loaded, () =>
        toTransaction(options.format === 'csv' ? csvRecord(columns!, parseCsvLine(line)) : parseJson(line)),
      )
      batch.push({ line: number, transaction })
      if (batch.length >= batchSize) await flush()
      else if (number % PROGRESS_LINES === 0) report()
    }
    await flush()
  } finally {
    // Batches loaded before a rejected one stay loaded: the planner's statistics should count them too.
    if (loaded > 0) await repo.analyzeLoadedTables(db.kysely, db.dialect)
  }
  return { lines: lastLine, loaded, batches }
}

function parse<T>(number: number, _line: string, loadedThroughLine: number, loaded: number, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof LineError) throw new TransactionImportError(number, err.field, err.reason, loadedThroughLine, loaded)
    if (err instanceof CsvError || err instanceof SyntaxError) throw new TransactionImportError(number, '', err.message, loadedThroughLine, loaded)
    throw err
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch (err) {
    throw new SyntaxError(`not valid JSON: ${(err as Error).message}`)
  }
}

async function writeBatch(db: Pick<Db, 'kysely' | 'dialect'>, batch: { line: number; transaction: Transaction }[], loadedThroughLine: number, loaded: number): Promise<void> {
  const fail = (line: number, reason: string) => new TransactionImportError(line, 'requestId', reason, loadedThroughLine, loaded)
  const seen = new Map<string, number>()
  for (const { line, transaction: t } of batch) {
    const key = `${t.organizationId}\u0000${t.requestId}`
    const earlier = seen.get(key)
    if (earlier !== undefined) throw fail(line, `${t.requestId} is also on line ${earlier} for organization ${t.organizationId}`)
    seen.set(key, line)
  }
  try {
    await db.kysely.transaction().execute((trx) => repo.insertTransactions(trx, db.dialect, batch.map((b) => b.transaction)))
  } catch (err) {
    // The batch was rolled back; find the line whose request id the store already holds, to name it.
    const byOrganization = new Map<string, { line: number; requestId: string }[]>()
    for (const { line, transaction: t } of batch) {
      const list = byOrganization.get(t.organizationId) ?? []
      list.push({ line, requestId: t.requestId })
      byOrganization.set(t.organizationId, list)
    }
    for (const [organizationId, entries] of byOrganization) {
      for (let i = 0; i < entries.length; i += 500) {
        const chunk = entries.slice(i, i + 500)
        const existing = new Set(await repo.existingRequestIds(db.kysely, organizationId, chunk.map((e) => e.requestId)))
        const hit = chunk.find((e) => existing.has(e.requestId))
        if (hit) throw fail(hit.line, `${hit.requestId} is already stored for organization ${organizationId}`)
      }
    }
    throw err
  }
}

/** The lines of a stream with their 1-based numbers, read chunk by chunk (the stream waits while a batch is written). */
async function* lines(input: Readable): AsyncGenerator<{ line: string; number: number; size: number }> {
  const decoder = new StringDecoder('utf8')
  let rest = ''
  let number = 0
  for await (const chunk of input) {
    const text = rest + decoder.write(chunk as Buffer)
    let start = 0
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const raw = text.slice(start, nl)
      start = nl + 1
      yield { line: raw.endsWith('\r') ? raw.slice(0, -1) : raw, number: ++number, size: Buffer.byteLength(raw) + 1 }
    }
    rest = text.slice(start)
  }
  rest += decoder.end()
  if (rest !== '') yield { line: rest.endsWith('\r') ? rest.slice(0, -1) : rest, number: ++number, size: Buffer.byteLength(rest) }
}
