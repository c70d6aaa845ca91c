// What the transactions store offers the rest of the app (the CLI, bootstrap, and later the report engine),
// built from the database it is given. No HTTP routes: the on-demand reports read through these functions.
import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/database.js'
import type { Transaction } from './catalog.js'
import type { GenerateOptions } from './generator.js'
import * as repo from './repository.js'
import { iterateReportRows, type ReportRow, type ReportRowQuery } from './report-rows.js'
import { ensureSandboxTransactions, storeGenerated, type GenerateResult } from './generate.js'
import { importTransactionFile, type ImportOptions, type ImportResult } from './import.js'

export type { TransactionQuery, TimeField } from './repository.js'
export type { ReportRow, ReportRowQuery } from './report-rows.js'

export interface TransactionService {
  importFile(path: string, options: ImportOptions): Promise<ImportResult>
  generate(options: GenerateOptions, onProgress?: (rows: number, total: number) => void): Promise<GenerateResult>
  ensureSandboxData(): Promise<string[]>
  /** One page ordered by the window's time, then request id. */
  list(query: repo.TransactionQuery, page: { offset: number; limit: number }): Promise<Transaction[]>
  /** Every match in order, a page at a time (for reports over many rows). */
  iterate(query: repo.TransactionQuery, pageSize?: number): AsyncGenerator<Transaction>
  count(query: repo.TransactionQuery): Promise<number>
  countByType(organizationId: string): Promise<Record<string, number>>
  get(organizationId: string, requestId: string): Promise<Transaction | undefined>
  /** A report's rows, a page at a time: the type, then each field's value, in the window's order (any row count). */
  reportRows(query: ReportRowQuery, fields: readonly string[], pageSize?: number): AsyncGenerator<ReportRow[]>
}

export function createTransactionService(deps: { db: Pick<Db, 'kysely' | 'dialect' | 'bulk'>; clock: Clock }): TransactionService {
  const { db, clock } = deps
  return {
    importFile: (path, options) => importTransactionFile(db, path, options),
    generate: (options, onProgress) => storeGenerated(db, options, onProgress),
    ensureSandboxData: () => ensureSandboxTransactions(db, clock),
    list: (query, page) => repo.listTransactions(db.kysely, query, page),
    iterate: (query, pageSize) => repo.iterateTransactions(db.kysely, query, pageSize),
    count: (query) => repo.countTransactions(db.kysely, query),
    countByType: (organizationId) => repo.countByType(db.kysely, organizationId),
    get: (organizationId, requestId) => repo.getTransaction(db.kysely, organizationId, requestId),
    reportRows: (query, fields, pageSize) => iterateReportRows(db, query, fields, pageSize),
  }
}
