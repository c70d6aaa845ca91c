// The four account reads on the sandbox data: shapes checked against fixtures written from the spec, filters,
// exact amounts, base-currency conversion, and isolation between the two sandbox customers.
import { Client } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CUSTOMER_2, expectStatus, login, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { checkAccountDetails, checkAccountListEntry, checkBalanceEntry, checkQuickBalanceEntry, checkStatusOk } from '../support/spec-shapes.js'

let t: TestApp
let as1: ReturnType<typeof withToken>
let as2: ReturnType<typeof withToken>
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
  as1 = withToken(t, await login(t))
  as2 = withToken(t, await login(t, CUSTOMER_2))
})
afterAll(() => t.close())

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- accounts are inspected as plain JSON
type Any = any

describe('GET /v2/accounts', () => {
  it('lists the visible accounts in the spec shape', async () => {
    const res = await as1('GET', '/v2/accounts?v=1')
    expectStatus(res, 200, 'API-200')
    expect(checkStatusOk(res.json)).toEqual([])
    const accounts: Any[] = res.json.accountsResponse.accounts
    expect(accounts.length).toBeGreaterThanOrEqual(10)
    accounts.forEach((a, i) => expect(checkAccountListEntry(a, `accounts[${i}]`)).toEqual([]))
    expect(accounts.every((a) => a.isVisible !== false)).toBe(true)
    for (const type of ['DDA', 'SDA', 'TDP', 'MCD', 'VCD', 'ACD']) expect(accounts.some((a) => a.accountType === type), type).toBe(true)
  })

  it('shows bank accounts with accountApca, cards masked, packages with sub-accounts pointing at them', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts
    const dda = accounts.find((a) => a.accountType === 'DDA')
    expect(dda.accountApca).toMatchObject({ bsb: '083047', accountId: '880169858' })
    expect(dda.accountIdDisplay).toBe('083047-880169858')
    expect(dda.isNominatedAccount).toBe(true)
    const services = dda.enrolments.flatMap((e: Any) => e.services)
    expect(services.some((s: Any) => s.sharedBy?.isCurrentUser === true)).toBe(true)
    expect(services.some((s: Any) => s.sharedBy === undefined)).toBe(true)
    const mcd = accounts.find((a) => a.accountType === 'MCD')
    expect(mcd.cardAccount.cardNumber).toMatch(/^\d{6}x{6}\d{4}$/)
    const children = accounts.filter((a) => a.parentRef)
    expect(children.length).toBe(2)
    for (const child of children) expect(accounts.some((a) => a.accountToken === child.parentRef && a.category === 'packages')).toBe(true)
  })

  it.each(['domestic', 'cards', 'packages'])('filters by category=%s', async (category) => {
    const accounts: Any[] = (await as1('GET', `/v2/accounts?v=1&category=${category}`)).json.accountsResponse.accounts
    expect(accounts.length).toBeGreaterThan(0)
    expect(accounts.every((a) => a.category === category)).toBe(true)
    const c2: Any[] = (await as2('GET', `/v2/accounts?v=1&category=${category}`)).json.accountsResponse.accounts
    expect(c2.length).toBeGreaterThan(0)
  })

  it.each(['savings', 'DOMESTIC', ''])('an unknown category %j → API-420/400', async (category) => {
    expectStatus(await as1('GET', `/v2/accounts?v=1&category=${category}`), 400, 'API-420')
  })

  it('account tokens are opaque and URL-safe', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts
    for (const a of accounts) expect(a.accountToken).toMatch(/^[A-Za-z0-9_-]{32,}$/)
  })
})

describe('GET /v2/accounts/balance', () => {
  it('gives every balance variant in the spec shape, amounts as strings', async () => {
    const res = await as1('GET', '/v2/accounts/balance?v=1')
    expectStatus(res, 200, 'API-200')
    expect(Object.keys(res.json)).toEqual(['status', 'accountBalancesResponse'])
    const accounts: Any[] = res.json.accountBalancesResponse.accounts
    accounts.forEach((a, i) => expect(checkBalanceEntry(a, `accounts[${i}]`)).toEqual([]))
    const kinds = new Set(accounts.map((a) => a.balance.apiStructType))
    expect([...kinds].sort()).toEqual(['amountBalance', 'lendingBalance', 'limitBalance', 'purseBalances', 'unitBalance'])
    expect(new Set(accounts.map((a) => a.balance.balanceStatus))).toContain('N/A')
  })

  it('carries the largest amount exactly', async () => {
    const res = await as1('GET', '/v2/accounts/balance?v=1&category=packages')
    expect(res.text).toContain('"9999999999999999.99"')
    expect(res.text).not.toMatch(/e\+|1\.0e16|10000000000000000/)
  })

  it('adds baseCurrencyBalance in AUD by default, converted exactly', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts/balance?v=1')).json.accountBalancesResponse.accounts
    const fca = accounts.find((a) => a.accountType === 'FCA').balance.amountBalance
    expect(fca.availableBalance.currency).toBe('USD')
    const rate = (await t.db.kysely.selectFrom('exchange_rates').select('rate').where('from_currency', '=', 'USD').where('to_currency', '=', 'AUD').executeTakeFirstOrThrow()).rate
    expect(fca.baseCurrencyBalance).toEqual({ currency: 'AUD', amount: expectedConversion(fca.availableBalance.amount, rate) })
    const dda = accounts.find((a) => a.accountType === 'DDA').balance.amountBalance
    expect(dda.baseCurrencyBalance).toEqual(dda.availableBalance)
  })

  it('converts to another baseCurrency', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts/balance?v=1&baseCurrency=USD')).json.accountBalancesResponse.accounts
    const dda = accounts.find((a) => a.accountType === 'DDA').balance.amountBalance
    expect(dda.baseCurrencyBalance.currency).toBe('USD')
    expect(dda.baseCurrencyBalance.amount).toBe(expectedConversion(dda.availableBalance.amount, '0.65'))
    const fca = accounts.find((a) => a.accountType === 'FCA').balance.amountBalance
    expect(fca.baseCurrencyBalance).toEqual(fca.availableBalance)
  })

  it('omits baseCurrencyBalance where no rate is stored', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts/balance?v=1&baseCurrency=JPY')).json.accountBalancesResponse.accounts
    expect(accounts.some((a) => a.balance.amountBalance?.baseCurrencyBalance)).toBe(false)
  })

  it('filters by groupId and category', async () => {
    const everyday: Any[] = (await as1('GET', '/v2/accounts/balance?v=1&groupId=everyday')).json.accountBalancesResponse.accounts
    expect(everyday.map((a) => a.accountType)).toEqual(['DDA'])
    const cards: Any[] = (await as1('GET', '/v2/accounts/balance?v=1&category=cards')).json.accountBalancesResponse.accounts
    expect(cards.every((a) => a.category === 'cards')).toBe(true)
    const none: Any[] = (await as1('GET', '/v2/accounts/balance?v=1&groupId=no-such-group')).json.accountBalancesResponse.accounts
    expect(none).toEqual([])
  })

  it.each([
    ['baseCurrency=usd', 'lower case'],
    ['baseCurrency=AUDX', 'four letters'],
    ['category=loans', 'unknown category'],
    ['groupId=a%20b', 'space in groupId'],
  ])('%s (%s) → API-420/400', async (query) => {
    expectStatus(await as1('GET', `/v2/accounts/balance?v=1&${query}`), 400, 'API-420')
  })
})

describe('GET /v2/accounts/quickBalance', () => {
  it('follows the per-type rules for bsb, accountId and accountIdDisplay', async () => {
    const res = await as1('GET', '/v2/accounts/quickBalance?v=1')
    expectStatus(res, 200, 'API-200')
    const accounts: Any[] = res.json.quickBalanceResponse.accounts
    accounts.forEach((a, i) => expect(checkQuickBalanceEntry(a, `accounts[${i}]`)).toEqual([]))
    const dda = accounts.find((a) => a.accountType === 'DDA')
    expect(dda).toMatchObject({ bsb: '083047', accountId: '880169858' })
    expect(dda.accountIdDisplay).toBeUndefined()
    expect(dda.balanceThreshold).toBeDefined()
    for (const type of ['MCD', 'VCD', 'ACD']) {
      const card = accounts.find((a) => a.accountType === type)
      expect(card.accountIdDisplay, type).toMatch(/^\d{6}x{6}\d{4}$/)
      expect(card.bsb).toBeUndefined()
    }
    expect(accounts.find((a) => a.accountType === 'HLN')?.bsb).toBeUndefined()
  })
})

describe('GET /v2/account/{accountToken}', () => {
  it('gives details of every member in the spec shape', async () => {
    const accounts: Any[] = (await as1('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts
    const members = new Set<string>()
    for (const a of accounts) {
      const res = await as1('GET', `/v2/account/${a.accountToken}?v=1`)
      expectStatus(res, 200, 'API-200')
      const details = res.json.accountDetailsResponse
      expect(checkAccountDetails(details), a.accountType).toEqual([])
      expect(details.accountToken).toBe(a.accountToken)
      expect(details.accountIdDisplay).toBe(a.accountIdDisplay)
      members.add(details.apiStructType)
    }
    expect([...members].sort()).toEqual([
      'creditCardAccount', 'currentAccount', 'depositAccount', 'generalInsuranceAccount', 'investmentFundsAccount',
      'leasingAccount', 'loanAccount', 'portfolioAccount', 'travelCardAccount',
    ])
  })

  it('reads a hidden account of the user by its token', async () => {
    const hidden = await t.db.kysely.selectFrom('accounts').select('account_token').where('is_visible', '=', 0).where('customer_id', '=', 'sandbox-customer-1').executeTakeFirstOrThrow()
    expectStatus(await as1('GET', `/v2/account/${hidden.account_token}?v=1`), 200, 'API-200')
  })

  it.each(['not%20url%20safe', 'a'.repeat(200), 'b'.repeat(300), '%E0%A4%A'])('a malformed token %s → API-420/400', async (token) => {
    const res = await as1('GET', `/v2/account/${token}?v=1`)
    expectStatus(res, 400, 'API-420')
    expect(res.headers['x-correlationid']).toBeDefined()
  })
})

describe('isolation between the sandbox customers', () => {
  it("no read by customer 2 returns any of customer 1's accounts, by any path", async () => {
    const own1: Any[] = (await as1('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts
    const tokens1 = new Set(own1.map((a) => a.accountToken))
    for (const path of ['/v2/accounts?v=1', '/v2/accounts/balance?v=1', '/v2/accounts/quickBalance?v=1']) {
      const accounts: Any[] = Object.values((await as2('GET', path)).json).find((v: Any) => v?.accounts)!['accounts' as never]
      expect(accounts.length, path).toBeGreaterThan(0)
      for (const a of accounts) expect(tokens1.has(a.accountToken), path).toBe(false)
    }
    for (const token of tokens1) expectStatus(await as2('GET', `/v2/account/${token}?v=1`), 404, 'API-404')
  })

  it("and customer 1 none of customer 2's", async () => {
    const own2: Any[] = (await as2('GET', '/v2/accounts?v=1')).json.accountsResponse.accounts
    for (const a of own2) expectStatus(await as1('GET', `/v2/account/${a.accountToken}?v=1`), 404, 'API-404')
  })
})

describe('sandbox Authorization without strict tokens', () => {
  it('reads any string as the first sandbox customer, but a real token as its own customer', async () => {
    const lenient = await startTestApp()
    try {
      const anyString = await withToken(lenient, 'anything-at-all')('GET', '/v2/accounts?v=1')
      expectStatus(anyString, 200, 'API-200')
      const c1 = await withToken(lenient, await login(lenient))('GET', '/v2/accounts?v=1')
      expect(anyString.json).toEqual(c1.json)
      const token2 = await login(lenient, CUSTOMER_2)
      const c2 = await withToken(lenient, token2)('GET', '/v2/accounts?v=1')
      expect(c2.json).not.toEqual(c1.json)
      // Customer 2's token, once revoked, is refused: it never falls back to customer 1.
      await withToken(lenient, token2)('DELETE', '/v2/auth?v=1')
      expectStatus(await withToken(lenient, token2)('GET', '/v2/accounts?v=1'), 401, 'API-448')
      expectStatus(await withToken(lenient, undefined)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    } finally {
      await lenient.close()
    }
  })
})

describe('one keep-alive connection carrying several callers (a proxy in front)', () => {
  it('answers every call as its own key and token, though the connection remembers what it hashed last', async () => {
    const lenient = await startTestApp()
    const client = new Client(lenient.baseUrl, { pipelining: 1 })
    try {
      const get = async (authorization: string | undefined, key = lenient.sandboxKey, method = 'GET', path = '/v2/accounts?v=1') => {
        const headers: Record<string, string> = { 'x-svc-key': key, 'user-agent': 'finapi-tests/1.0' }
        if (authorization !== undefined) headers['authorization'] = authorization
        const res = await client.request({ method: method as 'GET', path, headers })
        const text = await res.body.text()
        return { status: res.statusCode, json: text ? JSON.parse(text) : undefined }
      }
      const [token1, token2] = [await login(lenient), await login(lenient, CUSTOMER_2)]
      const c1 = await get(token1)
      const c2 = await get(token2)
      expect(c1.status).toBe(200)
      expect(c2.json).not.toEqual(c1.json)
      expect((await get('anything-at-all')).json).toEqual(c1.json)
      expect((await get(token2)).json).toEqual(c2.json)
      expect((await get(token1)).json).toEqual(c1.json)
      // Customer 2's token, revoked on this very connection, is refused on its next call, and never read as customer 1.
      expect((await get(token2, lenient.sandboxKey, 'DELETE', '/v2/auth?v=1')).status).toBe(200)
      expect((await get(token2)).json.status.code).toBe('API-448')
      // A key of the same length differing in its last character is unknown, right after the real key passed.
      const wrongKey = lenient.sandboxKey.slice(0, -1) + (lenient.sandboxKey.endsWith('x') ? 'y' : 'x')
      expect((await get(token1, wrongKey)).json.status.code).toBe('API-440')
      expect((await get(token1)).json).toEqual(c1.json)
    } finally {
      await client.close()
      await lenient.close()
    }
  })
})

/** amount × rate rounded half away from zero to cents, computed independently of src/ with BigInt. */
function expectedConversion(amount: string, rate: string): string {
  const [ai, af = ''] = amount.replace('-', '').split('.')
  const [ri, rf = ''] = rate.split('.')
  const product = BigInt(ai! + af) * BigInt(ri! + rf)
  const scale = af.length + rf.length
  const divisor = 10n ** BigInt(scale - 2)
  const cents = (product + divisor / 2n) / divisor
  const s = cents.toString().padStart(3, '0')
  return `${amount.startsWith('-') ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`
}
