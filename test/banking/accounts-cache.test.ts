// The accounts service's in-process cache, against the real sandbox database: a customer already read answers
// without a promise, concurrent first reads share one query, the least recently read customer is dropped first,
// and neither a forgotten nor a failed read is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccountsService } from '../../src/banking/accounts/service.js'
import type { BankingPrincipal as Principal } from '../../src/banking/auth/service.js'
import { SANDBOX_CUSTOMER_1_ID, SANDBOX_CUSTOMER_2_ID } from '../../src/banking/sandbox-data.js'
import type { Db } from '../../src/platform/db/database.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

const customer1: Principal = { customerId: SANDBOX_CUSTOMER_1_ID, restricted: false }
const customer2: Principal = { customerId: SANDBOX_CUSTOMER_2_ID, restricted: false }

describe('the accounts cache', () => {
  it('reads a customer once: concurrent first reads share the query, later reads need no promise', async () => {
    const accounts = createAccountsService({ db: t.db })
    const first = accounts.list(customer1)
    const second = accounts.list(customer1)
    expect(first).toBeInstanceOf(Promise)
    expect(second).toBeInstanceOf(Promise)
    const [a, b] = await Promise.all([first, second])
    expect(a).toBe(b)
    expect(a.length).toBeGreaterThan(0)

    const third = accounts.list(customer1)
    expect(third).not.toBeInstanceOf(Promise)
    expect(third).toBe(a)
    const details = accounts.details(customer1, a[0]!.accountToken)
    expect(details).not.toBeInstanceOf(Promise)
    expect(accounts.details(customer1, a[0]!.accountToken)).toBe(details)
  })

  it('an unknown account token of a cached customer throws not_found (API-404 on the wire) at once', async () => {
    const accounts = createAccountsService({ db: t.db })
    await accounts.list(customer1)
    expect(() => accounts.details(customer1, 'no-such-token')).toThrow(expect.objectContaining({ kind: 'not_found' }))
  })

  it('drops the least recently read customer when full', async () => {
    const accounts = createAccountsService({ db: t.db, cacheCustomers: 1 })
    await accounts.list(customer1)
    expect(accounts.list(customer1)).not.toBeInstanceOf(Promise)
    await accounts.list(customer2)
    expect(accounts.list(customer2)).not.toBeInstanceOf(Promise)
    expect(accounts.list(customer1)).toBeInstanceOf(Promise) // evicted by customer 2
  })

  it('does not keep a read that was forgotten while it ran', async () => {
    const accounts = createAccountsService({ db: t.db })
    const loading = accounts.list(customer1)
    accounts.forget(SANDBOX_CUSTOMER_1_ID)
    await loading
    expect(accounts.list(customer1)).toBeInstanceOf(Promise)
  })

  it('does not keep a failed read: the next call tries again', async () => {
    // The query runs, and its result is then refused, as a lost connection would be.
    const failing = t.db.kysely.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async () => {
        throw new Error('database unavailable')
      },
    })
    let fail = true
    const db = {
      get kysely() {
        return fail ? failing : t.db.kysely
      },
    } as Pick<Db, 'kysely'>
    const accounts = createAccountsService({ db })
    const first = accounts.list(customer1)
    expect(first).toBeInstanceOf(Promise)
    await expect(first).rejects.toThrow('database unavailable')
    fail = false
    const retried = accounts.list(customer1)
    expect(retried).toBeInstanceOf(Promise)
    expect(retried).not.toBe(first)
    expect((await retried).length).toBeGreaterThan(0)
  })
})
