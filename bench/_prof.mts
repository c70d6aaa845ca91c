import { randomUUID } from 'node:crypto'
import { openDatabase } from '../src/platform/db/database.js'
import { createDirectoryBlobStore } from '../src/platform/blobs/directory-store.js'
import { systemClock } from '../src/platform/clock.js'
import { createReportGenerator } from '../src/reporting/reports/generate.js'
import { createTransactionService } from '../src/reporting/transactions/service/index.js'
import { createDefinitionsService } from '../src/reporting/definitions/service.js'
import { createReportingClock } from '../src/reporting/scheduler/clocks.js'
import { insertInstance } from '../src/reporting/reports/repository.js'
const FIELDS = ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'PaymentData.CurrencyCode', 'Application.Name', 'BillTo.FirstName', 'BillTo.LastName','BillTo.Email', 'BillTo.City', 'BillTo.State', 'BillTo.Zip', 'BillTo.Country', 'BillTo.Address1', 'BillTo.Phone', 'PaymentMethod.CardType','PaymentMethod.AccountSuffix', 'PaymentData.AuthorizationCode', 'PaymentData.BinNumber', 'LineItems.ProductName', 'ShipTo.CompanyName']
const db = openDatabase(process.argv[2] ?? 'sqlite:/tmp/finapi-bench-reports-100000/bench.db')
const blobs = createDirectoryBlobStore('/tmp/benchprof/blobs')
const gen = createReportGenerator({ db: db.kysely, clock: systemClock, blobs, transactions: createTransactionService({ db, clock: systemClock }), definitions: createDefinitionsService(), reportingClock: createReportingClock({ db: db.kysely, clock: systemClock, sandbox: true }), sandbox: true, leaseMs: 60000, pageSize: Number(process.env.PAGE ?? 5000) })
const id = randomUUID(); const now = new Date().toISOString()
await insertInstance(db.kysely, { id, organization_id: 'testrest', report_name: 'prof', subscription_name: null, request_hash: id, subscription_type: 'CUSTOM', report_definition_name: 'TransactionRequestClass', report_frequency: 'ADHOC', report_mime_type: 'text/csv', report_fields: JSON.stringify(FIELDS), report_filters: '{}', report_preferences: '{"signedAmounts":true,"fieldNameConvention":"SOAPI"}', group_name: null, timezone: 'GMT', window_start: process.argv[3] ?? '2026-03-01T00:00:00.000Z', window_end: '2026-03-02T00:00:00.000Z', status: 'QUEUED', queued_at: now, created_at: now, updated_at: now })
let peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }
const timer = setInterval(() => { const m = process.memoryUsage(); for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], Math.round(m[k] / 1048576)) }, 20)
console.log('before', Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1048576)])))
const t0 = performance.now()
await gen({ instanceId: id }, { id: 'j', kind: 'k', attempt: 1, maxAttempts: 5, signal: new AbortController().signal, renewLease: async () => true })
console.log('generate', ((performance.now() - t0) / 1000).toFixed(2), 's', (await db.kysely.selectFrom('report_instances').select(['status','row_count','content_bytes','stored_bytes']).where('id','=',id).executeTakeFirst()), 'rss', (process.memoryUsage.rss()/1048576).toFixed(0))
clearInterval(timer); console.log('peak', peak)
await db.close()
