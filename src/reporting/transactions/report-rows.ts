// The rows of a report, read straight from the store in report order: only the requested catalog fields, the
// ones kept in `fields` extracted by the database (SQLite's json_extract, PostgreSQL's jsonb operators on one
// parse per row), page after page by keyset, so a report over millions of rows holds one page at a time and never
// parses a transaction's whole JSON in JavaScript.
import { sql, type RawBuilder } from 'kysely'
import type { Dialect, Executor } from '../../platform/db/database.js'
import { CATALOG_CORE, type TransactionType } from './catalog.js'

const CORE_SQL: Record<string, string> = {
  requestId: 'request_id',
  organizationId: 'organization_id',
  requestTime: 'request_time',
  amount: 'amount',
  currency: 'currency',
  settlementAmount: 'settlement_amount',
  settlementCurrency: 'settlement_currency',
  batchId: 'batch_id',
  fundingDate: 'funding_date',
}

export interface ReportRowQuery {
  organizationId: string
  /** Which time the half-open window applies to. */
  by: 'requestTime' | 'submissionTime'
  from: string
  to: string
  types?: readonly TransactionType[]
  /** Catalog field → the values a row's field must be one of. */
  filters?: Readonly<Record<string, readonly string[]>>
}

/** One row: the transaction's type (for signed amounts), then each requested field's value or null. */
export type ReportRow = [type: string, ...values: (string | null)[]]

const TIME = { requestTime: 'request_time', submissionTime: 'submission_time' } as const

function split(field: string): [string, string] {
  const dot = field.indexOf('.')
  return [field.slice(0, dot), field.slice(dot + 1)]
}

/** The SQL reading one catalog field; `json` is the row's parsed JSON on PostgreSQL, `fields` on SQLite. */
function fieldSql(dialect: Dialect, field: string, json: string): RawBuilder<string | null> {
  const core = CATALOG_CORE[field]
  if (core !== undefined) return sql<string | null>`${sql.ref(CORE_SQL[core]!)}`
  const [group, name] = split(field)
  if (dialect === 'postgres') return sql<string | null>`(${sql.raw(json)} -> ${group}::text ->> ${name}::text)`
  return sql<string | null>`json_extract(fields, ${`$.${JSON.stringify(group)}.${JSON.stringify(name)}`})`
}

/** Every row of the window, in (time, request id) order, `pageSize` at a time. */
export async function* iterateReportRows(db: Executor, dialect: Dialect, query: ReportRowQuery, fields: readonly string[], pageSize = 5000): AsyncGenerator<ReportRow> {
  const time = sql.ref(TIME[query.by])
  const conditions: RawBuilder<unknown>[] = [sql`organization_id = ${query.organizationId}`, sql`${time} >= ${query.from}`, sql`${time} < ${query.to}`]
  if (query.types?.length) conditions.push(sql`type in (${sql.join([...query.types])})`)
  for (const [field, values] of Object.entries(query.filters ?? {})) {
    conditions.push(sql`${fieldSql(dialect, field, '(fields::jsonb)')} in (${sql.join([...values])})`)
  }
  const columns = fields.map((f) => fieldSql(dialect, f, 'j'))
  let after: [string, string] | undefined
  for (;;) {
    const where = sql.join(after ? [...conditions, sql`(${time}, request_id) > (${after[0]}, ${after[1]})`] : conditions, sql` and `)
    const page =
      dialect === 'postgres'
        ? sql<Record<string, string | null>>`select t, r, y, ${sql.join(columns.map((c, i) => sql`${c} as ${sql.ref(`c${i}`)}`))} from (select ${time} as t, request_id as r, type as y, ${sql.join(usedCore(fields))}, fields::jsonb as j from transactions where ${where} order by ${time}, request_id limit ${pageSize} offset 0) page order by t, r`
        : sql<Record<string, string | null>>`select ${time} as t, request_id as r, type as y, ${sql.join(columns.map((c, i) => sql`${c} as ${sql.ref(`c${i}`)}`))} from transactions where ${where} order by ${time}, request_id limit ${pageSize}`
    const { rows } = await page.execute(db)
    for (const row of rows) {
      const out: ReportRow = [row['y']!]
      for (let i = 0; i < fields.length; i++) out.push(row[`c${i}`] ?? null)
      yield out
    }
    if (rows.length < pageSize) return
    const last = rows[rows.length - 1]!
    after = [last['t']!, last['r']!]
  }
}

/** The core columns a PostgreSQL page selects for the outer query (at least one, so the list is never empty). */
function usedCore(fields: readonly string[]): RawBuilder<unknown>[] {
  const columns = new Set(fields.flatMap((f) => (CATALOG_CORE[f] ? [CORE_SQL[CATALOG_CORE[f]]!] : [])))
  columns.add('organization_id')
  return [...columns].map((c) => sql.ref(c))
}
