// The transaction store on a real database (SQLite, or PostgreSQL with TEST_PG_ADMIN_URL): `finapi transactions
// import` of NDJSON and CSV through the real command, a bad line rejecting its batch by line and field, exact
// decimals, the generator's determinism and coverage, a 20,000-row load with its counts, the read API, `finapi
// transactions generate` (an unknown organization, a second run, an interrupted one, its progress bar), and the
// sandbox data generated once even when two processes start together.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { catalogValue, TRANSACTION_TYPES } from '../../src/reporting/transactions/catalog.js'
import { sumDecimals } from '../../src/reporting/transactions/decimal.js'
import { generateTransactions } from '../../src/reporting/transactions/generator.js'
import { ensureSandboxTransactions, SANDBOX_DAYS, SANDBOX_MERCHANTS, SANDBOX_PER_DAY, SANDBOX_ROWS_PER_INSERT } from '../../src/reporting/transactions/generate.js'
import { createTransactionService, type TransactionService } from '../../src/reporting/transactions/service.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { runCommand, runFinapi } from '../support/cli.js'
import { FakeClock } from '../support/clock.js'
import { createTestDatabase, type TestDatabase, migrate } from '../support/database.js'

const dir = mkdtempSync(join(tmpdir(), 'finapi-transactions-'))
let database: TestDatabase
let db: Db
let service: TransactionService
const clock = new FakeClock(new Date('2026-03-15T12:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  db = openDatabase(database.url)
  await migrate(db)
  service = createTransactionService({ db, clock })
})
afterAll(async () => {
  await db.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const env = () => ({ MODE: 'production', DATABASE_URL: database.url, LOG_LEVEL: 'warn', SECRETS_KEY: 'transactions-test-secrets-key-0123456789' })
const file = (name: string, lines: string[]) => {
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}
const line = (org: string, requestId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ organizationId: org, requestId, type: 'sale', requestTime: '2026-03-01T10:00:00Z', currency: 'USD', amount: '10.00', ...extra })
const all = (organizationId: string) => service.list({ organizationId, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' }, { offset: 0, limit: 1000 })

describe('finapi transactions import', () => {
  it('loads NDJSON and reads every catalog field back', async () => {
    const path = file('a.ndjson', [
      line('imp-a', '1001', { paymentSubtype: 'VI', settlementCurrency: 'USD', settlementAmount: '10.00', batchId: 'B1', submissionTime: '2026-03-01T23:00:00Z', fundingDate: '2026-03-03', decision: 'ACCEPT', fields: { BillTo: { Email: 'a@example.com' }, 'CustomerFields': { 'PersonalId(CPF/CNPJ)': '123' } } }),
      '',
      line('imp-a', '1002', { type: 'refund', requestTime: '2026-03-02T08:00:00.5Z' }),
    ])
    const res = await runFinapi(['transactions', 'import', path], env())
    expect(res.stderr).toBe('')
    expect(res.stdout).toContain('Imported 2 transactions from 3 lines in 1 batches')
    const [first, second] = await all('imp-a')
    expect(first).toMatchObject({ requestId: '1001', requestTime: '2026-03-01T10:00:00.000Z', submissionTime: '2026-03-01T23:00:00.000Z', fundingDate: '2026-03-03', batchId: 'B1', paymentSubtype: 'VI' })
    expect(catalogValue(first!, 'BillTo.Email')).toBe('a@example.com')
    expect(catalogValue(first!, 'CustomerFields.PersonalId(CPF/CNPJ)')).toBe('123')
    expect(catalogValue(first!, 'Request.RequestID')).toBe('1001')
    expect(second).toMatchObject({ requestId: '1002', type: 'refund', requestTime: '2026-03-02T08:00:00.500Z' })
  })

  it('loads CSV whose header names core columns and Group.Field columns', async () => {
    const path = file('b.csv', [
      'organizationId,requestId,type,requestTime,currency,amount,paymentSubtype,BillTo.Email,Fee.DiscountAmount,Merchant-DefinedDataFields.MerchantDefinedData1',
      'imp-b,2001,capture,2026-03-01T10:00:00Z,EUR,0.10,MC,"x,y@example.com",0.0024,"say ""hi"""',
      'imp-b,2002,credit,2026-03-01T11:00:00Z,EUR,0.20,MC,,,',
    ])
    const res = await runFinapi(['transactions', 'import', path], env())
    expect(res.stderr).toBe('')
    const rows = await all('imp-b')
    expect(rows.map((r) => r.amount)).toEqual(['0.10', '0.20'])
    expect(catalogValue(rows[0]!, 'BillTo.Email')).toBe('x,y@example.com')
    expect(catalogValue(rows[0]!, 'Fee.DiscountAmount')).toBe('0.0024')
    expect(catalogValue(rows[0]!, 'Merchant-DefinedDataFields.MerchantDefinedData1')).toBe('say "hi"')
    expect(rows[1]!.fields).toEqual({})
  })

  it('rejects the whole batch of a bad line, naming the line and the field', async () => {
    const path = file('c.ndjson', [line('imp-c', '1'), line('imp-c', '2'), line('imp-c', '3'), line('imp-c', '4', { fields: { Fee: { DiscountAmount: 5 } } }), line('imp-c', '5')])
    const res = await runFinapi(['transactions', 'import', path, '--batch-size', '2'], env())
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('line 4, field Fee.DiscountAmount')
    expect(res.stderr).toContain('2 transactions through line 2 were (continue with --from-line 3)')
    expect((await all('imp-c')).map((r) => r.requestId)).toEqual(['1', '2'])

    const csv = file('d.csv', ['organizationId,requestId,type,requestTime,currency,amount', 'imp-d,1,sale,2026-03-01T10:00:00Z,USD,1.00', 'imp-d,2,sale,2026-02-30T10:00:00Z,USD,1.00'])
    const bad = await runFinapi(['transactions', 'import', csv], env())
    expect(bad.stderr).toContain('line 3, field requestTime: is not a valid time')
    expect(await all('imp-d')).toEqual([])

    const header = await runFinapi(['transactions', 'import', file('e.csv', ['organizationId,requestId,Request.RequestID'])], env())
    expect(header.stderr).toContain('line 1, field Request.RequestID: is stored as the core column requestId')
  })

  it('names the line whose request id is already stored, and loads the rest with --from-line', async () => {
    const path = file('f.ndjson', [line('imp-c', '9'), line('imp-c', '1')])
    const res = await runFinapi(['transactions', 'import', path], env())
    expect(res.stderr).toContain('line 2, field requestId: 1 is already stored for organization imp-c')
    const rest = await service.importFile(file('g.ndjson', [line('imp-c', '1'), line('imp-c', '3')]), { format: 'ndjson', fromLine: 2 })
    expect(rest.loaded).toBe(1)
    expect((await all('imp-c')).map((r) => r.requestId)).toEqual(['1', '2', '3'])
  })

  it('keeps amounts exact: decimal text in, the same text out, exact sums', async () => {
    const amounts = ['0.1', '0.2', '9999999999999.9999', '0.0001', '1234567890.12']
    await service.importFile(file('h.ndjson', amounts.map((amount, i) => line('imp-h', `h${i}`, { amount, fields: { Fee: { DiscountAmount: '0.0239', TotalFeeAmount: '0.1239' } } }))), { format: 'ndjson' })
    const rows = await all('imp-h')
    expect(rows.map((r) => r.amount)).toEqual(amounts)
    expect(sumDecimals(rows.slice(0, 2).map((r) => r.amount))).toBe('0.3')
    expect(sumDecimals(rows.map((r) => r.amount))).toBe('10001234567890.4200')
    expect(catalogValue(rows[0]!, 'Fee.TotalFeeAmount')).toBe('0.1239')
  })
})

describe('the generator', () => {
  const options = { organizationId: 'gen', days: 30, perDay: 200, seed: 'seed-1', end: '2026-03-01' }
  const digest = (seed: string) => createHash('sha256').update(JSON.stringify([...generateTransactions({ ...options, seed })])).digest('hex')

  it('is deterministic for a seed and differs between seeds', () => {
    expect(digest('seed-1')).toBe(digest('seed-1'))
    expect(digest('seed-2')).not.toBe(digest('seed-1'))
  })

  it('produces every type, exact per-day counts, unique ids, batches, fees, fundings and reviews', () => {
    const rows = [...generateTransactions(options)]
    expect(rows).toHaveLength(6000)
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(TRANSACTION_TYPES))
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(6000)
    const perDay = new Map<string, number>()
    for (const r of rows) perDay.set(r.requestTime.slice(0, 10), (perDay.get(r.requestTime.slice(0, 10)) ?? 0) + 1)
    expect([...perDay.values()].every((n) => n === 200)).toBe(true)
    // eCheck payments have no card brand.
    expect(new Set(rows.map((r) => r.paymentSubtype))).toEqual(new Set(['VI', 'MC', 'AX', 'DI', 'DP', undefined]))
    expect(rows.filter((r) => r.fields['Check']).every((r) => r.paymentSubtype === undefined && r.currency === 'USD')).toBe(true)
    expect(rows.some((r) => r.fields['NotificationOfChange']?.['Code'])).toBe(true)
    expect(new Set(rows.map((r) => r.currency)).size).toBeGreaterThan(3)
    expect(rows.some((r) => catalogValue(r, 'Application.Rcode') === '0')).toBe(true)
    const funded = rows.filter((r) => r.fundingDate)
    expect(funded.length).toBeGreaterThan(1000)
    expect(funded.every((r) => r.type === 'chargeback' || r.fundingDate! > (r.fields['Settlement']?.['SettlementDate'] ?? ''))).toBe(true)
    expect(rows.filter((r) => r.fields['Fee']).every((r) => /^\d+\.\d{4}$/.test(r.fields['Fee']!['DiscountAmount']!))).toBe(true)
    const reviews = rows.filter((r) => r.fields['Conversion'])
    expect(reviews.length).toBeGreaterThan(50)
    expect(reviews[0]!.fields['Conversion']).toMatchObject({ OriginalDecision: 'REVIEW', Reviewer: expect.any(String), Queue: expect.any(String), Profile: expect.any(String) })
    // The last day's batch has not closed.
    expect(rows.filter((r) => r.requestTime.startsWith('2026-03-01')).every((r) => r.batchId === undefined)).toBe(true)
  })
})

describe('stored generated transactions', () => {
  it('loads 20,000 and reports their counts, pages and windows', async () => {
    const result = await service.generate({ organizationId: 'bulk', days: 4, perDay: 5000, seed: 'bulk', end: '2026-03-10' })
    expect(result.rows).toBe(20_000)
    const byType = await service.countByType('bulk')
    expect(byType).toEqual(result.byType)
    expect(Object.values(byType).reduce((a, b) => a + b, 0)).toBe(20_000)
    const day = { organizationId: 'bulk', from: '2026-03-08T00:00:00.000Z', to: '2026-03-09T00:00:00.000Z' }
    expect(await service.count(day)).toBe(5000)
    const page1 = await service.list(day, { offset: 0, limit: 100 })
    const page2 = await service.list(day, { offset: 100, limit: 100 })
    const keys = [...page1, ...page2].map((r) => `${r.requestTime}|${r.requestId}`)
    expect(keys).toEqual([...keys].sort())
    let seen = 0
    let last = ''
    for await (const t of service.iterate({ ...day, types: ['refund', 'chargeback'] }, 97)) {
      expect(`${t.requestTime}|${t.requestId}` > last).toBe(true)
      last = `${t.requestTime}|${t.requestId}`
      seen++
    }
    expect(seen).toBe(await service.count({ ...day, types: ['refund', 'chargeback'] }))
    expect(await service.count({ organizationId: 'bulk', by: 'fundingDate', from: '2026-03-01', to: '2026-03-11' })).toBeGreaterThan(5000)
    const one = page1[0]!
    expect(await service.get('bulk', one.requestId)).toEqual(one)
  })
})

describe('finapi transactions generate', () => {
  const generate = (org: string, seed: string, days = 3, perDay = 1000) =>
    ['transactions', 'generate', '--org', org, '--days', String(days), '--per-day', String(perDay), '--seed', seed, '--end', '2026-03-01']
  const count = (organizationId: string) => service.count({ organizationId, from: '2000-01-01', to: '2100-01-01' })

  beforeAll(async () => {
    const created = await runFinapi(['orgs', 'create', '--id', 'gen', '--type', 'merchant'], env())
    expect(created.code, created.stderr).toBe(0)
  })

  it('refuses an organization that does not exist, in one line naming it, storing nothing', async () => {
    const res = await runFinapi(generate('nosuchorg', 'x'), env())
    expect(res.code).toBe(1)
    expect(res.stderr).toBe('finapi: no organization nosuchorg: create it with finapi orgs create, or see finapi orgs list\n')
    expect(await count('nosuchorg')).toBe(0)
  })

  it('run twice, stores the rows once; after an interrupted run, stores the rest', async () => {
    const first = await runFinapi(generate('gen', 'demo', 30, 20), env())
    expect(first.stderr).toBe('') // no progress bar in a pipe
    expect(first.stdout).toMatch(/^Stored 600 transactions for gen \(\d+ \w+/)
    const again = await runFinapi(generate('gen', 'demo', 30, 20), env())
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe('Stored no transactions for gen: the 600 of seed demo (30 days of 20 ending 2026-03-01) were stored by an earlier run.\n')
    expect(await count('gen')).toBe(600)

    // An interrupted run leaves the first rows it generated: here 700 of 3,000.
    const options = { organizationId: 'gen', days: 3, perDay: 1000, seed: 'cut', end: '2026-03-01' }
    const rows = [...generateTransactions(options)]
    await db.kysely.transaction().execute((trx) => insertTransactions(trx, db.dialect, rows.slice(0, 700)))
    const rest = await runFinapi(generate('gen', 'cut'), env())
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.stdout).toMatch(/^Stored 2300 transactions for gen \(.*\) in \d+\.\d s; the first 700 were stored by an earlier run\.$/m)
    expect(await count('gen')).toBe(3600)
    expect(await service.get('gen', rows.at(-1)!.requestId)).toEqual(rows.at(-1))
  })

  it('shows a progress bar on a terminal: rows done of the total, the rate, the time left', async () => {
    // `script` runs the command on a pseudo-terminal, so stderr is a TTY as it is for an operator.
    const bin = fileURLToPath(new URL('../../bin/finapi.js', import.meta.url))
    const command = [process.execPath, bin, ...generate('gen', 'tty', 4, 5000)].map((word) => JSON.stringify(word)).join(' ')
    const res = await runCommand('script', ['-q', '-e', '-c', command, '/dev/null'], env())
    expect(res.code, res.stdout).toBe(0)
    const lines = res.stdout.split(/\r\n?|\n/).map((l) => l.replace('\x1b[K', '')).filter(Boolean)
    const bars = lines.filter((l) => l.startsWith('generating '))
    // The first update is drawn at once and the end always (the rate and time left between: src/platform/cli/progress.test.ts).
    expect(bars.length).toBeGreaterThan(1)
    expect(bars[0]).toMatch(/^generating [█░]{20} +\d+% [\d,]+\/20,000 rows /)
    expect(bars.at(-1)).toMatch(/^generating █{20} 100% 20,000\/20,000 rows [\d,]+\/s in \d+:\d\d$/)
    expect(res.stdout).toMatch(/\r\n?Stored 20000 transactions for gen /)
  })
})

describe('sandbox transactions', () => {
  it('are generated once for every sandbox merchant, even by two processes starting at once', async () => {
    const sandbox = await createTestDatabase()
    try {
      const environment = { MODE: 'sandbox', DATABASE_URL: sandbox.url, LOG_LEVEL: 'warn' }
      const started = await Promise.all([runFinapi(['migrate'], environment), runFinapi(['migrate'], environment)])
      expect(started.map((r) => r.code), started.map((r) => r.stderr).join('\n')).toEqual([0, 0])
      const other = openDatabase(sandbox.url)
      try {
        const store = createTransactionService({ db: other, clock })
        for (const organizationId of SANDBOX_MERCHANTS) {
          expect(await store.count({ organizationId, from: '2000-01-01', to: '2100-01-01' })).toBe(SANDBOX_DAYS * SANDBOX_PER_DAY)
        }
        const today = new Date().toISOString().slice(0, 10)
        expect(await store.count({ organizationId: 'testrest', from: `${today}T00:00:00.000Z`, to: `${today}T23:59:59.999Z` })).toBe(SANDBOX_PER_DAY)
        expect(await ensureSandboxTransactions(other, clock)).toEqual([])
      } finally {
        await other.close()
      }
    } finally {
      await sandbox.drop()
    }
  })
  it('stored a statement at a time, are what one insert of all of a merchant\'s rows stores', async () => {
    const batched = await createTestDatabase()
    const whole = await createTestDatabase()
    const [a, b] = [openDatabase(batched.url), openDatabase(whole.url)]
    try {
      await migrate(a)
      await migrate(b)
      expect(await ensureSandboxTransactions(a, clock)).toEqual([...SANDBOX_MERCHANTS])
      const end = clock.now().toISOString().slice(0, 10)
      for (const organizationId of SANDBOX_MERCHANTS) {
        const rows = [...generateTransactions({ organizationId, days: SANDBOX_DAYS, perDay: SANDBOX_PER_DAY, seed: `sandbox:${organizationId}`, end })]
        expect(rows.length).toBeGreaterThan(4 * SANDBOX_ROWS_PER_INSERT)
        await b.kysely.transaction().execute((trx) => insertTransactions(trx, b.dialect, rows))
      }
      // Everything the reports read: rows, tallies, events and detail rows (a capture's authorization in an earlier batch).
      const dump = async (db: Db) => {
        const out: Record<string, unknown[]> = {}
        for (const table of ['transactions', 'transaction_tallies', 'transaction_events', 'transaction_details'] as const) {
          const rows = (await db.kysely.selectFrom(table).selectAll().execute()) as Record<string, unknown>[]
          out[table] = rows.map((row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v]))).sort()
        }
        return out
      }
      const [left, right] = [await dump(a), await dump(b)]
      expect(left['transaction_details']!.length).toBeGreaterThan(0)
      expect(left).toEqual(right)
    } finally {
      await a.close()
      await b.close()
      await batched.drop()
      await whole.drop()
    }
  })
})
