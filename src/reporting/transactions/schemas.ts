// One line of `finapi transactions import`: the TypeBox schema (NDJSON lines are checked against it, and CSV
// lines are turned into the same shape first), and the checks a schema cannot express, each failure naming the
// field. Produces the stored Transaction with times normalized to milliseconds.
import { Type, type Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { CORE_COLUMNS, coreColumn, DECISIONS, FIELD_PATTERN, GROUP_PATTERN, TRANSACTION_TYPES, type Transaction } from './catalog.js'

const IsoTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$', description: 'ISO-8601 UTC, e.g. 2026-03-01T10:15:00Z' })
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alpha-3' })
/** Exact decimal text, up to 4 decimals (fees and exchange rates have 4); stored as given. */
const Amount = Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,4})?$', description: 'non-negative decimal text, e.g. "19.99"; the type says refund or charge' })
const Id = (description: string) => Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description })

export const TransactionLine = Type.Object(
  {
    organizationId: Id('the merchant id, e.g. testrest'),
    requestId: Id('unique per organization'),
    type: Type.Enum([...TRANSACTION_TYPES]),
    requestTime: IsoTime,
    submissionTime: Type.Optional(IsoTime),
    fundingDate: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    paymentSubtype: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,8}$', description: 'VI, MC, AX, DI, DP, …' })),
    currency: Currency,
    amount: Amount,
    settlementCurrency: Type.Optional(Currency),
    settlementAmount: Type.Optional(Amount),
    batchId: Type.Optional(Id('the settlement batch')),
    decision: Type.Optional(Type.Enum([...DECISIONS])),
    fields: Type.Optional(
      Type.Record(Type.String(), Type.Record(Type.String(), Type.String({ maxLength: 4000 })), {
        description: 'every other catalog field, as group → field → value, e.g. {"BillTo": {"Email": "a@example.com"}}',
      }),
    ),
  },
  { additionalProperties: false },
)
export type TransactionLine = Static<typeof TransactionLine>

const validator = Compile(TransactionLine)

/** A line that cannot be stored: the field (a core column or `Group.Field`) and why. */
export class LineError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field ? `field ${field}: ` : ''}${reason}`)
  }
}

/** Checks one parsed line and returns the transaction to store; throws LineError naming the field. */
export function toTransaction(value: unknown): Transaction {
  if (!validator.Check(value)) throw firstError(value)
  const line = value
  const fields = line.fields ?? {}
  for (const [group, groupFields] of Object.entries(fields)) {
    if (!GROUP_PATTERN.test(group)) throw new LineError(group, 'is not a catalog group name (letters, digits and -)')
    for (const name of Object.keys(groupFields)) {
      const full = `${group}.${name}`
      if (!FIELD_PATTERN.test(name)) throw new LineError(full, 'is not a catalog field name')
      const core = coreColumn(full)
      if (core !== undefined) throw new LineError(full, `is stored as the core column ${core}; give it there`)
    }
  }
  const requestTime = isoTime(line.requestTime, 'requestTime')
  const submissionTime = line.submissionTime === undefined ? undefined : isoTime(line.submissionTime, 'submissionTime')
  if (line.fundingDate !== undefined && isoTime(`${line.fundingDate}T00:00:00Z`, 'fundingDate').slice(0, 10) !== line.fundingDate) {
    throw new LineError('fundingDate', 'is not a calendar date')
  }
  if ((line.settlementAmount === undefined) !== (line.settlementCurrency === undefined)) {
    throw new LineError(line.settlementAmount === undefined ? 'settlementAmount' : 'settlementCurrency', 'settlementAmount and settlementCurrency go together')
  }
  const transaction: Transaction = { ...line, requestTime, fields }
  if (submissionTime !== undefined) transaction.submissionTime = submissionTime
  return transaction
}

function isoTime(text: string, field: string): string {
  const date = new Date(text)
  const normalized = Number.isNaN(date.getTime()) ? '' : date.toISOString()
  // A date that rolls over (2026-02-30) is refused rather than moved.
  if (normalized.slice(0, 19) !== text.slice(0, 19)) throw new LineError(field, `is not a valid time: ${text}`)
  return normalized
}

function firstError(value: unknown): LineError {
  const errors = [...validator.Errors(value)]
  if (errors.length === 0) return new LineError('', 'is not a transaction object')
  // The deepest path is the most precise one.
  const error = errors.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a), errors[0]!)
  const parts = error.instancePath.split('/').filter(Boolean).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
  const params = error.params as { requiredProperties?: string[]; additionalProperties?: string[] }
  let field = parts[0] === 'fields' ? parts.slice(1).join('.') : parts.join('.')
  if (params.requiredProperties?.length) field = [field, params.requiredProperties[0]].filter(Boolean).join('.')
  if (params.additionalProperties?.length) {
    const extra = params.additionalProperties[0]!
    return new LineError(extra, `is not a core column (${CORE_COLUMNS.join(', ')}); other catalog fields go under "fields"`)
  }
  return new LineError(field, error.message)
}

/**
 * A CSV header: core column names and `Group.Field` names. Returns, per column, where its cell goes; throws
 * LineError naming the first column that is neither.
 */
export type CsvColumn = { core: string } | { group: string; field: string }

export function csvColumns(header: string[]): CsvColumn[] {
  const seen = new Set<string>()
  return header.map((name) => {
    if (seen.has(name)) throw new LineError(name, 'appears twice in the header')
    seen.add(name)
    if ((CORE_COLUMNS as readonly string[]).includes(name)) return { core: name }
    const core = coreColumn(name)
    if (core !== undefined) throw new LineError(name, `is stored as the core column ${core}; name the column ${core}`)
    const dot = name.indexOf('.')
    const group = name.slice(0, dot)
    const field = name.slice(dot + 1)
    if (dot <= 0 || !GROUP_PATTERN.test(group) || !FIELD_PATTERN.test(field)) {
      throw new LineError(name, `is neither a core column (${CORE_COLUMNS.join(', ')}) nor a Group.Field name`)
    }
    return { group, field }
  })
}

/** A CSV record as the line object toTransaction checks; empty cells are absent values. */
export function csvRecord(columns: CsvColumn[], cells: string[]): Record<string, unknown> {
  if (cells.length !== columns.length) throw new LineError('', `has ${cells.length} cells; the header has ${columns.length}`)
  const record: Record<string, unknown> = {}
  // No prototype: group and field names are the file's (`constructor.x` must be a group, not Object's constructor).
  const fields: Record<string, Record<string, string>> = Object.create(null)
  for (let i = 0; i < columns.length; i++) {
    const cell = cells[i]!
    if (cell === '') continue
    const column = columns[i]!
    if ('core' in column) record[column.core] = cell
    else (fields[column.group] ??= Object.create(null))[column.field] = cell
  }
  record['fields'] = fields
  return record
}
