// Helpers of the report engine's tests: signed one-time requests, letting the server's scheduler and job runner
// run on the fake clock, downloads, and the expected file content written from the transactions themselves
// (catalogValue, the store's own reading of a field), independently of the server's writers.
import { gunzipSync } from 'node:zlib'
import { createTransactionService } from '../../src/reporting/transactions/service.js'
import { catalogValue, type Transaction } from '../../src/reporting/transactions/catalog.js'
import type { Response, TestApp } from './harness.js'
import { request } from 'undici'
import { TESTREST_KEY, signedCall, signedHeaders } from './reporting.js'

export type Key = typeof TESTREST_KEY

export const CSV_FIELDS = ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'PaymentData.CurrencyCode', 'BillTo.Email', 'BillTo.City', 'Application.Name', 'ChargebackAndRetrieval.ChargebackAmount']

export function createReport(t: TestApp, body: Record<string, unknown>, key: Key = TESTREST_KEY, merchantId?: string): Promise<Response> {
  return signedCall(t, { method: 'POST', path: '/reporting/v3/reports', body: JSON.stringify(body), key, merchantId })
}

export function get(t: TestApp, path: string, key: Key = TESTREST_KEY, merchantId?: string): Promise<Response> {
  return signedCall(t, { method: 'GET', path, key, merchantId })
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A signed GET whose body is kept as bytes (undici does not decode Content-Encoding), with extra headers. */
export async function getRaw(t: TestApp, path: string, headers: Record<string, string> = {}, key: Key = TESTREST_KEY): Promise<RawResponse> {
  const signed: Record<string, string> = signedHeaders({ method: 'GET', path, key, date: t.clock.now() })
  delete signed['x-svc-key']
  const res = await request(t.baseUrl + path, { method: 'GET', headers: { ...signed, ...headers } })
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) }
}

/** Lets the server's scheduler sweep and job runner run (both poll every JOBS_POLL_MS on the fake clock). */
export async function settle(t: TestApp, times = 2): Promise<void> {
  for (let i = 0; i < times; i++) await t.clock.tick(1000)
}

/** A day's window of the sandbox data: [day 00:00Z, next day 00:00Z). */
export function dayWindow(t: TestApp, daysBack: number): { start: string; end: string } {
  const today = Date.UTC(t.clock.now().getUTCFullYear(), t.clock.now().getUTCMonth(), t.clock.now().getUTCDate())
  return { start: new Date(today - daysBack * 86_400_000).toISOString(), end: new Date(today - (daysBack - 1) * 86_400_000).toISOString() }
}

/** The transactions of a window in report order, read from the database the app uses. */
export async function transactionsOf(t: TestApp, organizationId: string, from: string, to: string): Promise<Transaction[]> {
  const service = createTransactionService({ db: t.db, clock: t.clock })
  const out: Transaction[] = []
  for await (const tx of service.iterate({ organizationId, from, to })) out.push(tx)
  return out
}

// A cell as the README's CSV section documents it: a formula start (after any apostrophes) gets a leading `'`,
// plain numbers aside; then RFC 4180 quoting.
const neutralized = (v: string) => (/^'*[=+\-@\t\r]/.test(v) && !/^[+-]?\d+(\.\d+)?$/.test(v) ? `'${v}` : v)
const csvCell = (v: string | undefined) => (v === undefined ? '' : /[",\r\n]/.test(neutralized(v)) ? `"${neutralized(v).replace(/"/g, '""')}"` : neutralized(v))
// The documented fields signedAmounts signs (README, Report engine).
const SIGNED = new Set(['PaymentData.Amount', 'Settlement.SettlementAmount', 'Funding.FundingAmount', 'Deposit.Amount', 'Event.Amount', 'ChargebackAndRetrieval.ChargebackAmount'])
const negative = (tx: Transaction) => ['refund', 'credit', 'chargeback'].includes(tx.type)

/** A field's value as a report shows it: signed amounts negative for refunds, credits and chargebacks. */
export function shown(tx: Transaction, field: string, signedAmounts = true): string | undefined {
  const v = catalogValue(tx, field)
  if (v === undefined || !signedAmounts || !SIGNED.has(field) || !negative(tx) || /^[0.]+$/.test(v)) return v
  return `-${v}`
}

export function expectedCsv(transactions: Transaction[], fields: string[], header: string[] = fields, signedAmounts = true): string {
  const lines = [header.join(','), ...transactions.map((tx) => fields.map((f) => csvCell(shown(tx, f, signedAmounts))).join(','))]
  return lines.map((l) => `${l}\r\n`).join('')
}

export const gunzipText = (body: Buffer) => gunzipSync(body).toString('utf8')
