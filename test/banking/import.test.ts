// `finapi import` through the real command: a generated 10,000-customer file loads; a file with one bad record
// loads nothing and names the record and field; the shipped example and JSON Schema stay in step with the code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashSecret } from '../../src/platform/crypto.js'
import { openDatabase, type Db } from '../../src/platform/db/database.js'
import { expectStatus } from '../support/banking.js'
import { runCommand, runFinapi, startFinapiServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'

const dir = mkdtempSync(join(tmpdir(), 'finapi-import-'))

let database: TestDatabase
let db: Db
beforeAll(async () => {
  database = await createTestDatabase()
  db = openDatabase(database.url)
  // Every test starts from a migrated database holding one customer of its own, whatever ran before it.
  const file = join(dir, 'seed.json')
  writeFileSync(file, JSON.stringify({ customers: [{ ...customer(99_999_999, await hashSecret('seed')), id: SEEDED_ID }] }))
  const seeded = await finapi(['import', file])
  if (seeded.code !== 0) throw new Error(`seeding failed: ${seeded.stderr}`)
})
afterAll(async () => {
  await db.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const SEEDED_ID = 'SEEDED-1'
const production = () => ({ MODE: 'production', DATABASE_URL: database.url, LOG_LEVEL: 'warn', SECRETS_KEY: 'import-test-secrets-key-0123456789abcdef' })
const finapi = (args: string[]) => runFinapi(args, production())

function customer(i: number, secretHash: string) {
  const n = String(i).padStart(8, '0')
  const money = (amount: string) => ({ currency: 'AUD', amount })
  return {
    id: `BULK-${n}`,
    brand: 'bulk',
    lob: 'bulk',
    isBusiness: i % 7 === 0,
    credentials: [{ kind: 'usernamePassword', username: `u${n}`, secretHash }],
    accounts: [
      {
        id: 'dda',
        category: 'domestic',
        account: { accountIdDisplay: `083047-${n}`, accountType: 'DDA', apiStructType: 'accountApca', accountApca: { bsb: '083047', accountId: n }, availableBalance: `${i}.25` },
        balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { availableBalance: money(`${i}.25`) } },
        details: { productCode: 'DDA', productName: 'Everyday', apiStructType: 'currentAccount', currentAccount: { interestEarnedInCurrentTaxYear: '0.00' } },
      },
      {
        id: 'card',
        category: 'cards',
        account: { accountIdDisplay: `517000xxxxxx${n.slice(4)}`, accountType: 'MCD', apiStructType: 'cardAccount', cardAccount: { cardNumber: `517000xxxxxx${n.slice(4)}` } },
        balance: { apiStructType: 'limitBalance', balanceStatus: 'OK', limitBalance: { currentLimit: money('1000.00'), availableLimit: money('900.00'), setLimit: money('1000.00') } },
        details: { productCode: 'MCD', productName: 'Card', apiStructType: 'creditCardAccount', creditCardAccount: { cardSchemeDesc: 'Mastercard', creditLimit: '1000.00' } },
      },
    ],
  }
}

async function counts() {
  const count = async (table: 'customers' | 'accounts' | 'credentials') =>
    Number((await db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
  return { customers: await count('customers'), credentials: await count('credentials'), accounts: await count('accounts') }
}

describe('finapi import', () => {
  it('loads a generated 10,000-customer file, whose customers then sign in', async () => {
    // Operators migrating from another system bring hashes; one shared hash keeps the test fast.
    const secretHash = await hashSecret('bulk-password')
    const before = await counts()
    const file = join(dir, 'bulk.json')
    writeFileSync(file, JSON.stringify({ customers: Array.from({ length: 10_000 }, (_, i) => customer(i, secretHash)) }))
    const res = await finapi(['import', file])
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Imported 10000 customers, 10000 credentials, 20000 accounts')
    expect(await counts()).toEqual({ customers: before.customers + 10_000, credentials: before.credentials + 10_000, accounts: before.accounts + 20_000 })

    // A production server on the same database serves an imported customer.
    const server = await startFinapiServer(production())
    const baseUrl = server.baseUrl
    try {
      const created = await finapi(['keys', 'create', '--name', 'import-test'])
      const key = /(fk_\S+)/.exec(created.stdout)![1]!
      const login = await call(baseUrl, key, 'POST', '/v2/auth?v=1', {
        body: { loginRequest: { brand: 'bulk', lob: 'bulk', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: 'u00004321', password: 'bulk-password' } } } },
      })
      expectStatus(login, 200, 'API-200')
      const accounts = await call(baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: { authorization: login.json.loginResponse.tokens[0].value } })
      expect(accounts.json.accountsResponse.accounts.map((a: { accountIdDisplay: string }) => a.accountIdDisplay)).toEqual(['083047-00004321', '517000xxxxxx4321'])
      expect(accounts.json.accountsResponse.accounts[0].availableBalance).toBe('4321.25')
    } finally {
      server.child.kill('SIGTERM')
    }
  })

  it.each([
    ['an amount with four decimals', (c: ReturnType<typeof customer>) => (c.accounts[1]!.balance.limitBalance!.setLimit.amount = '1000.1234'), 'customers[5000].accounts[1]', 'balance.limitBalance.setLimit.amount'],
    ['a missing productName', (c: ReturnType<typeof customer>) => delete (c.accounts[0]!.details as Record<string, unknown>)['productName'], 'customers[5000].accounts[0]', 'details.productName'],
    ['a customer id already in the database', (c: ReturnType<typeof customer>) => (c.id = SEEDED_ID), 'customers[5000]', 'id'],
    ['a parentRef naming no account', (c: ReturnType<typeof customer>) => ((c.accounts[1]!.account as Record<string, unknown>)['parentRef'] = 'nope'), 'customers[5000]', 'account.parentRef'],
    ['apiStructType naming another member', (c: ReturnType<typeof customer>) => (c.accounts[0]!.balance.apiStructType = 'limitBalance'), 'customers[5000]', 'balance.apiStructType'],
  ])('rejects a file with %s without loading any of it', async (_label, spoil, record, field) => {
    const before = await counts()
    const secretHash = await hashSecret('x')
    const customers = Array.from({ length: 6000 }, (_, i) => customer(20_000 + i, secretHash))
    spoil(customers[5000]!)
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify({ customers }))
    const res = await finapi(['import', file])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('import rejected, nothing was loaded')
    expect(res.stderr).toContain(record)
    expect(res.stderr).toContain(field)
    expect(await counts()).toEqual(before)
  })

  it('shows progress on a terminal, rewritten in place', async () => {
    const hash = await hashSecret('progress-pass')
    const file = join(dir, 'progress.json')
    const customers = Array.from({ length: 1_500 }, (_, i) => ({ ...customer(50_000 + i, hash), brand: 'tty', lob: 'tty', id: `TTY-${i}` }))
    writeFileSync(file, JSON.stringify({ customers }))
    // `script` runs the command on a pseudo-terminal, so stderr is a TTY as it is for an operator.
    const bin = fileURLToPath(new URL('../../bin/finapi.js', import.meta.url))
    const res = await runCommand('script', ['-q', '-e', '-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} import ${JSON.stringify(file)}`, '/dev/null'], production())
    expect(res.code).toBe(0)
    // A bar per phase, each finished on a line of its own (the terminal may turn \n into \r\n).
    const shown = res.stdout.replaceAll('\x1b[K', '')
    expect(shown).toMatch(/\rvalidating █{20} 100% 1,500\/1,500 customers [\d,]+\/s in \d+:\d\d\r?\n/)
    expect(shown).toMatch(/\rhashing [█░]{20} +\d+% [\d,]+\/1,500 secrets /)
    expect(shown).toMatch(/\rwriting █{20} 100% [\d,]+\/[\d,]+ rows [\d,]+\/s in \d+:\d\d\r?\n/)
    expect(shown).toContain('Imported 1500 customers')
  })

  it('rejects a file that is not JSON', async () => {
    const file = join(dir, 'broken.json')
    writeFileSync(file, '{"customers": [')
    const res = await finapi(['import', file])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('cannot read')
  })

  it('loads the shipped example file', async () => {
    const res = await finapi(['import', fileURLToPath(new URL('../../examples/import-example.json', import.meta.url))])
    expect(res.stderr).toBe('')
    expect(res.stdout).toContain('Imported 1 customers, 3 credentials, 3 accounts, 2 exchange rates.')
  })

  it('publishes the JSON Schema the importer uses', async () => {
    const res = await finapi(['import', '--schema'])
    const shipped = readFileSync(new URL('../../docs/import.schema.json', import.meta.url), 'utf8')
    expect(JSON.parse(res.stdout)).toEqual(JSON.parse(shipped))
  })
})
