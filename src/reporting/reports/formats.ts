// How a report's rows are written: CSV (RFC 4180, CRLF, a header of column names), XML, and JSON as an extension.
// Pure string builders fed one row at a time, so a file of any size is written in constant memory. Column names
// are the catalog's `Group.Field` by default and for SOAPI ("Simple Order API"); SCMP names come from scmpName().
// CSV cells are written by the reporting half's one csvCell, which also neutralizes formulas.
import { csvCell } from '../csv-cell.js'

export const REPORT_FORMATS = ['text/csv', 'application/xml', 'application/json'] as const
export type ReportFormat = (typeof REPORT_FORMATS)[number]

export const EXTENSIONS: Record<ReportFormat, string> = { 'text/csv': 'csv', 'application/xml': 'xml', 'application/json': 'json' }

export interface FileHeading {
  organizationId: string
  reportName: string
  reportDefinitionName: string
  /** The window, written in the report's zone with its offset. */
  reportStartTime: string
  reportEndTime: string
  timezone: string
  fields: readonly string[]
  /** `SOAPI` (the default) or `SCMP`: the CSV header's names. */
  fieldNameConvention: string
}

export interface FileWriter {
  head(): string
  /** One row: its values from index 1 on (index 0 holds the row's type, which no file shows). */
  row(values: readonly (string | null)[]): string
  tail(): string
}

/** Well-known SCMP names; every other field is `snake_case(group)_snake_case(field)` (see README). */
const SCMP_NAMES: Readonly<Record<string, string>> = {
  'Request.RequestID': 'request_id',
  'Request.MerchantID': 'merchant_id',
  'Request.TransactionDate': 'transaction_date',
  'Request.MerchantReferenceNumber': 'merchant_ref_number',
  'Application.Name': 'ics_applications',
  'Application.Rcode': 'ics_rcode',
  'Application.Rflag': 'ics_rflag',
  'Application.Rmsg': 'ics_rmsg',
  'Application.ReasonCode': 'reason_code',
  'PaymentData.Amount': 'amount',
  'PaymentData.CurrencyCode': 'currency',
  'PaymentData.AuthorizationCode': 'auth_auth_code',
  'BillTo.FirstName': 'customer_firstname',
  'BillTo.LastName': 'customer_lastname',
  'BillTo.Email': 'customer_email',
  'BillTo.Phone': 'customer_phone',
  'BillTo.Address1': 'bill_address1',
  'BillTo.Address2': 'bill_address2',
  'BillTo.City': 'bill_city',
  'BillTo.State': 'bill_state',
  'BillTo.Zip': 'bill_zip',
  'BillTo.Country': 'bill_country',
}

function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()
}

/** The SCMP column name of a catalog field: `BillTo.Email` → `customer_email`, `GiftCard.CurrentBalance` → `gift_card_current_balance`. */
export function scmpName(field: string): string {
  if (Object.hasOwn(SCMP_NAMES, field)) return SCMP_NAMES[field]!
  const dot = field.indexOf('.')
  return `${snake(field.slice(0, dot))}_${snake(field.slice(dot + 1))}`
}

export function columnNames(fields: readonly string[], convention: string): string[] {
  return convention === 'SCMP' ? fields.map(scmpName) : [...fields]
}

/** The transaction types whose amounts are money going back: negative when signedAmounts is on. */
export const NEGATIVE_TYPES: ReadonlySet<string> = new Set(['refund', 'credit', 'chargeback'])
/** The fields holding the transaction's own amount (not fees): the ones signedAmounts signs. */
export const SIGNED_FIELDS: ReadonlySet<string> = new Set(['PaymentData.Amount', 'Settlement.SettlementAmount', 'Funding.FundingAmount', 'Deposit.Amount', 'Event.Amount', 'ChargebackAndRetrieval.ChargebackAmount'])

/** `"5.00"` → `"-5.00"`; zero, an empty value and one already negative stay as they are. */
export function negate(value: string | null): string | null {
  if (value === null || value === '' || value.startsWith('-') || /^[0.]+$/.test(value)) return value
  return `-${value}`
}

// Characters XML 1.0 cannot carry at all become U+FFFD.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

export function xmlText(value: string): string {
  return value.replace(XML_INVALID, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)
}

/** A field's XML element name: its `Group.Field` name, characters XML names cannot hold replaced by `_`. */
export function xmlName(field: string): string {
  const name = field.replace(/[^A-Za-z0-9._-]/g, '_')
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`
}

export function fileWriter(format: ReportFormat, heading: FileHeading): FileWriter {
  const { fields } = heading
  switch (format) {
    case 'text/csv':
      return {
        head: () => `${columnNames(fields, heading.fieldNameConvention).map(csvCell).join(',')}\r\n`,
        row(values) {
          let out = csvCell(values[1] ?? null)
          for (let i = 2; i < values.length; i++) out += `,${csvCell(values[i] ?? null)}`
          return `${out}\r\n`
        },
        tail: () => '',
      }
    case 'application/xml': {
      const open = fields.map((f) => `<${xmlName(f)}>`)
      const close = fields.map((f) => `</${xmlName(f)}>`)
      const attrs = (['reportName', 'reportDefinitionName', 'organizationId', 'reportStartTime', 'reportEndTime', 'timezone'] as const).map((k) => ` ${k}="${xmlText(heading[k])}"`).join('')
      return {
        head: () => `<?xml version="1.0" encoding="UTF-8"?>\n<Report${attrs}>\n`,
        row(values) {
          let out = '<Record>'
          for (let i = 1; i < values.length; i++) if (values[i] !== null) out += `${open[i - 1]}${xmlText(values[i]!)}${close[i - 1]}`
          return `${out}</Record>\n`
        },
        tail: () => '</Report>\n',
      }
    }
    case 'application/json': {
      const keys = fields.map((f) => `${JSON.stringify(f)}:`)
      let first = true
      const { fieldNameConvention: _c, fields: _f, ...rest } = heading
      return {
        head: () => `${JSON.stringify({ ...rest, reportFields: fields }).slice(0, -1)},"records":[\n`,
        row(values) {
          let out = first ? '{' : ',\n{'
          first = false
          for (let i = 1; i < values.length; i++) out += `${i > 1 ? ',' : ''}${keys[i - 1]}${values[i] === null ? 'null' : JSON.stringify(values[i])}`
          return `${out}}`
        },
        tail: () => `${first ? '' : '\n'}]}\n`,
      }
    }
  }
}
