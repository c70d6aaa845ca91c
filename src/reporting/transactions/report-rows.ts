// The rows of a report, read straight from the store in report order: only the requested catalog fields, the
// ones kept in `fields` extracted by the database (SQLite's json_extract, PostgreSQL's jsonb operators on one
// parse per row), page after page by keyset, so a report over millions of rows holds a page or two at a time and never
// parses a transaction's whole JSON in JavaScript. On PostgreSQL two pages are read at once (twoAtOnce); on SQLite
// the next page is read on a thread while this one is formatted (platform/db/bulk-reader.ts).
import { sql, type RawBuilder } from 'kysely'
import type { BulkReads, Dialect, Executor } from '../../platform/db/database.js'
import { coreColumn, type TransactionType } from './catalog.js'

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
  const core = coreColumn(field)
  if (core !== undefined) return sql<string | null>`${sql.ref(CORE_SQL[core]!)}`
  const [group, name] = split(field)
  if (dialect === 'postgres') return sql<string | null>`(${sql.raw(json)} -> ${group}::text ->> ${name}::text)`
  return sql<string | null>`json_extract(fields, ${`$.${JSON.stringify(group)}.${JSON.stringify(name)}`})`
}

/**
 * SQLite reads every field kept in `fields` with one json_extract of all their paths (one parse of the row's JSON,
 * one small JSON array back), which measured twice as fast as one json_extract per field. A row comes back as an
 * array: its time, request id and type, then the core columns the fields name, then that JSON array.
 */
function sqliteColumns(fields: readonly string[]): { columns: RawBuilder<unknown>[]; read: (row: unknown[]) => ReportRow } {
  const json = fields.filter((f) => coreColumn(f) === undefined)
  const paths = json.map((f) => {
    const [group, name] = split(f)
    return `$.${JSON.stringify(group)}.${JSON.stringify(name)}`
  })
  const columns = fields.flatMap((f) => (coreColumn(f) !== undefined ? [sql`${sql.ref(CORE_SQL[coreColumn(f)!]!)}`] : []))
  const at = 3 + columns.length // the JSON array's index in a row
  if (paths.length) columns.push(sql`json_extract(fields, ${sql.join(paths)})`)
  // Each field's index: a core column's in the row (positive), or a JSON path's in the array (negative, from -1).
  let core = 3
  const slots = fields.map((f) => (coreColumn(f) !== undefined ? core++ : -1 - json.indexOf(f)))
  return {
    columns,
    read(row) {
      // With one path json_extract answers the value itself; with several, a JSON array of them.
      const values = paths.length === 0 ? [] : paths.length === 1 ? [(row[at] as string | null) ?? null] : (JSON.parse(row[at] as string) as (string | null)[])
      const out: ReportRow = [row[2] as string]
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!
        out.push(slot > 0 ? ((row[slot] as string | null) ?? null) : (values[-1 - slot] ?? null))
      }
      return out
    },
  }
}

export interface ReportRowSource {
  kysely: Executor
  dialect: Dialect
  bulk: BulkReads
}

/** Every row of the window, in (time, request id) order, in pages of `pageSize` (the last may be empty). */
export async function* iterateReportRows(db: ReportRowSource, query: ReportRowQuery, fields: readonly string[], pageSize = 1000): AsyncGenerator<ReportRow[]> {
  try {
    yield* pagesOf(db, query, fields, pageSize)
  } finally {
    // Done reading, or stopped early: SQLite's reader thread may end now.
    db.bulk.release?.()
  }
}

async function* pagesOf(db: ReportRowSource, query: ReportRowQuery, fields: readonly string[], pageSize: number): AsyncGenerator<ReportRow[]> {
  const { dialect } = db
  const time = sql.ref(TIME[query.by])
  const conditions: RawBuilder<unknown>[] = [sql`organization_id = ${query.organizationId}`, sql`${time} < ${query.to}`]
  if (query.types?.length) conditions.push(sql`type in (${sql.join([...query.types])})`)
  for (const [field, values] of Object.entries(query.filters ?? {})) {
    conditions.push(sql`${fieldSql(dialect, field, '(fields::jsonb)')} in (${sql.join([...values])})`)
  }
  const lite = dialect === 'sqlite' ? sqliteColumns(fields) : undefined
  // SQLite reads the next page on its reader thread while this one is formatted (platform/db/bulk-reader.ts), so a
  // page is in memory up to three times at once (the thread's, its copy here, the one being formatted): a wide
  // report's pages hold at most WIDE_PAGE_VALUES values (503 fields: 198 rows), which took its peak RSS from 288 MB to
  // 230 and its time from 15.9 to 12.7 s (200,000 rows). PostgreSQL's keep their size: with pages that small its
  // wide report took 10 % longer (a key query and a page query per 198 rows), for 15 MB less.
  if (lite) pageSize = Math.min(pageSize, Math.max(1, Math.floor(WIDE_PAGE_VALUES / fields.length)))
  const postgres = lite ? [] : fields.map((f) => fieldSql(dialect, f, 'j'))
  // PostgreSQL: the row's JSON parsed once, in a subquery the planner keeps apart (offset 0), then one text column
  // per field. Columns rather than one JSON array per row (json_build_array): building the array cost the server
  // about 1.3 times COPY's own time for the same columns, and arrays of columns cost the client no more than a
  // JSON.parse per row.
  const select = (where: RawBuilder<unknown>, limit: number | 'all' = pageSize) =>
    lite
      ? sql<unknown>`select ${time}, request_id, type${lite.columns.length ? sql`, ${sql.join(lite.columns)}` : sql``} from transactions where ${where} order by ${time}, request_id limit ${limit}`
      : sql<unknown>`select t, r, y, ${sql.join(postgres)} from (select ${time} as t, request_id as r, type as y, ${sql.join(usedCore(fields))}, fields::jsonb as j from transactions where ${where} order by ${time}, request_id limit ${limit === 'all' ? sql`all` : limit} offset 0) page order by t, r`
  const read = lite ? lite.read : (row: unknown[]) => row.slice(2) as ReportRow
  // PostgreSQL, no filter on a field kept in the JSON (the key queries would parse every row's JSON too), and pages
  // of at most WIDE_PAGE_VALUES values: two pages read at once. A wide report's pages are large (503 fields, a
  // thousand rows: about 30 MB of values each), its time the server's own work rather than the database's, and a
  // second page in memory took its peak RSS past 256 MB.
  if (!lite && fields.length * pageSize <= WIDE_PAGE_VALUES && Object.keys(query.filters ?? {}).every((f) => coreColumn(f) !== undefined)) {
    yield* twoAtOnce(db, select, conditions, time, query.from, pageSize, read)
    return
  }
  // One lower bound on the time only: with two (the window's and the page's), both databases scan the index from
  // the window's start on every page, which made a million-row report quadratic.
  const first = select(sql.join([...conditions, sql`${time} >= ${query.from}`], sql` and `)).compile(db.kysely)
  // Compiled once: each later page re-binds the three values before the limit (its time bound twice, the request id).
  const later = select(sql.join([...conditions, sql`${time} >= ${''}`, sql`(${time} > ${''} or request_id > ${''})`], sql` and `)).compile(db.kysely)
  const bound = later.parameters.length - 4
  const fetch = (after: unknown[] | undefined) => {
    if (!after) return db.bulk.arrays(first)
    const parameters = [...later.parameters]
    parameters[bound] = parameters[bound + 1] = after[0]
    parameters[bound + 2] = after[1]
    return db.bulk.arrays({ ...later, parameters })
  }
  let next = fetch(undefined)
  for (;;) {
    const rows = await next
    const more = rows.length === pageSize
    if (more) {
      next = fetch(rows[rows.length - 1])
      next.catch(() => undefined) // a consumer that stops early leaves it unawaited
    }
    // A page at a time: one await per page, not per row.
    yield rows.map(read)
    if (!more) return
  }
}

type Key = [time: unknown, requestId: unknown]
/** The most values (fields × rows) a page may hold for two to be read at once (PostgreSQL) or one ahead (SQLite). */
const WIDE_PAGE_VALUES = 100_000

/**
 * PostgreSQL's pages two at a time, on two connections. Its backend spends about 15 µs a row parsing the row's JSON
 * (`fields::jsonb`), so one page after another kept one backend busy while the server waited for it: a million
 * rows took 1.5–1.8 times `COPY`'s time, which parses in parallel workers. Here each page's end is found first by a
 * query of the keys alone (an index scan, no JSON: about 0.3 µs a row), so the page after it can be read while it
 * is: page p is the rows after the key ending page p-1 up to and including the key ending page p. A page is bounded
 * at both ends by keys, not by a count, so a row written meanwhile inside a page's range is in that page, not
 * skipped or read twice; the last page, whose end no key query found, is read with a LIMIT and followed, if full,
 * by more.
 */
async function* twoAtOnce(
  db: ReportRowSource,
  select: (where: RawBuilder<unknown>, limit?: number | 'all') => RawBuilder<unknown>,
  conditions: RawBuilder<unknown>[],
  time: RawBuilder<unknown>,
  from: string,
  pageSize: number,
  read: (row: unknown[]) => ReportRow,
): AsyncGenerator<ReportRow[]> {
  const after = (key: Key | undefined) => (key ? [sql`${time} >= ${key[0]}`, sql`(${time} > ${key[0]} or request_id > ${key[1]})`] : [sql`${time} >= ${from}`])
  const upTo = (key: Key) => [sql`${time} <= ${key[0]}`, sql`(${time} < ${key[0]} or request_id <= ${key[1]})`]
  const where = (parts: RawBuilder<unknown>[]) => sql.join([...conditions, ...parts], sql` and `)
  /** The key of the pageSize-th row after `start`: the end of the page that starts there (none: fewer rows are left). */
  const endOf = async (start: Key | undefined): Promise<Key | undefined> => {
    const query = sql`select ${time}, request_id from transactions where ${where(after(start))} order by ${time}, request_id offset ${sql.lit(pageSize - 1)} limit 1`
    const [row] = await db.bulk.arrays(query.compile(db.kysely))
    return row ? [row[0], row[1]] : undefined
  }
  /** The rows after `start` up to `end`; with no end, at most a page's. */
  const rows = (start: Key | undefined, end: Key | undefined) =>
    db.bulk.arrays((end ? select(where([...after(start), ...upTo(end)]), 'all') : select(where(after(start)))).compile(db.kysely))
  interface Page {
    rows: Promise<unknown[][]>
    end: Promise<Key | undefined>
  }
  const open = (start: Key | undefined): Page => {
    const end = endOf(start)
    const page = { end, rows: end.then((e) => rows(start, e)) }
    // A consumer that stops early leaves them unawaited.
    page.end.catch(() => undefined)
    page.rows.catch(() => undefined)
    return page
  }
  let current = open(undefined)
  for (;;) {
    const end = await current.end
    // The next page starts where this one ends: read at once, beside this one.
    const next = end ? open(end) : undefined
    const page = await current.rows
    if (!next) {
      // The last page found no end: read with a LIMIT, so if rows came meanwhile, more may follow.
      yield page.map(read)
      if (page.length < pageSize) return
      current = open([page[page.length - 1]![0], page[page.length - 1]![1]])
      continue
    }
    yield page.map(read)
    current = next
  }
}

/** The core columns a PostgreSQL page selects for the outer query (at least one, so the list is never empty). */
function usedCore(fields: readonly string[]): RawBuilder<unknown>[] {
  const columns = new Set(fields.flatMap((f) => (coreColumn(f) ? [CORE_SQL[coreColumn(f)!]!] : [])))
  columns.add('organization_id')
  return [...columns].map((c) => sql.ref(c))
}
