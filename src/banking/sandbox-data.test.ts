import { sign, verify } from 'node:crypto'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { passcodeSigningInput } from './auth/service.js'
import { ImportFile, type ImportCustomer } from './accounts/import-schema.js'
import {
  SANDBOX_CUSTOMER_1_ID,
  SANDBOX_CUSTOMER_2_ID,
  SANDBOX_DEVICE_PRIVATE_KEY_PEM,
  SANDBOX_DEVICE_PUBLIC_KEY_PEM,
  SANDBOX_LOGINS,
  sandboxDataset,
} from './sandbox-data.js'
import { BALANCE_KINDS, CATEGORIES, DETAIL_KINDS } from './accounts/schemas.js'

function customer(id: string): ImportCustomer {
  const found = sandboxDataset().customers.find((c) => c.id === id)
  if (!found) throw new Error(`no customer ${id}`)
  return found
}

describe('sandboxDataset', () => {
  it('validates against the import schema', () => {
    const data = sandboxDataset()
    const ok = Value.Check(ImportFile, data)
    if (!ok) console.error([...Value.Errors(ImportFile, data)])
    expect(ok).toBe(true)
  })

  it('is deterministic', () => {
    expect(JSON.stringify(sandboxDataset())).toBe(JSON.stringify(sandboxDataset()))
  })

  it('names in each apiStructType the one member present', () => {
    for (const c of sandboxDataset().customers) {
      for (const a of c.accounts) {
        const balance = a.balance as Record<string, unknown>
        expect(BALANCE_KINDS.filter((k) => balance[k] !== undefined), a.id).toEqual([a.balance.apiStructType])
        const details = a.details as Record<string, unknown>
        expect(DETAIL_KINDS.filter((k) => details[k] !== undefined), a.id).toEqual([a.details.apiStructType])
        const list = a.account as Record<string, unknown>
        const shapes = ['accountApca', 'cardAccount', 'packageAccount'].filter((k) => list[k] !== undefined)
        expect(shapes, a.id).toEqual(a.account.apiStructType === undefined ? [] : [a.account.apiStructType])
        expect(a.account.category, a.id).toBe(a.category)
      }
    }
  })

  it('gives customer 1 every balance kind, detail kind, category and main account type', () => {
    const c = customer(SANDBOX_CUSTOMER_1_ID)
    expect(c.isBusiness).toBe(false)
    const balanceKinds = new Set(c.accounts.map((a) => a.balance.apiStructType))
    for (const kind of BALANCE_KINDS) expect(balanceKinds, kind).toContain(kind)
    const detailKinds = new Set(c.accounts.map((a) => a.details.apiStructType))
    for (const kind of DETAIL_KINDS) expect(detailKinds, kind).toContain(kind)
    const categories = new Set(c.accounts.map((a) => a.category))
    for (const category of CATEGORIES) expect(categories, category).toContain(category)
    const types = new Set(c.accounts.map((a) => a.account.accountType))
    for (const type of ['DDA', 'SDA', 'TDP', 'MCD', 'VCD', 'ACD']) expect(types, type).toContain(type)
  })

  it('gives customer 1 a hidden account, portfolio sub-accounts and the largest amount', () => {
    const c = customer(SANDBOX_CUSTOMER_1_ID)
    expect(c.accounts.some((a) => a.account.isVisible === false)).toBe(true)
    const ids = new Set(c.accounts.map((a) => a.id))
    const children = c.accounts.filter((a) => a.account.parentRef !== undefined)
    expect(children.length).toBeGreaterThan(0)
    for (const child of children) {
      expect(ids).toContain(child.account.parentRef)
      expect(child.account.parentRef).not.toBe(child.id)
    }
    expect(JSON.stringify(c.accounts.map((a) => a.balance))).toContain('"9999999999999999.99"')
  })

  it('gives customer 2 every category', () => {
    const c = customer(SANDBOX_CUSTOMER_2_ID)
    expect(c.isBusiness).toBe(true)
    const categories = new Set(c.accounts.map((a) => a.category))
    for (const category of CATEGORIES) expect(categories, category).toContain(category)
  })

  it('gives every account a unique, well-formed token', () => {
    const tokens = sandboxDataset().customers.flatMap((c) => c.accounts.map((a) => a.accountToken))
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{16,128}$/)
    expect(new Set(tokens).size).toBe(tokens.length)
  })

  it('registers every documented login', () => {
    const credentials = customer(SANDBOX_CUSTOMER_1_ID).credentials
    const kinds = credentials.map((c) => c.kind)
    for (const kind of ['usernamePassword', 'deviceRegIdPasscode', 'deviceRegIdPassword', 'deviceRegIdFingerprint', 'ivrPasscode', 'partyIdentifiers']) {
      expect(kinds, kind).toContain(kind)
    }
    expect(credentials).toContainEqual({ kind: 'usernamePassword', username: SANDBOX_LOGINS.usernamePassword.username, secret: SANDBOX_LOGINS.usernamePassword.password })
    expect(customer(SANDBOX_CUSTOMER_2_ID).credentials).toContainEqual({
      kind: 'usernamePassword',
      username: SANDBOX_LOGINS.customer2.username,
      secret: SANDBOX_LOGINS.customer2.password,
    })
  })
})

describe('sandbox device key', () => {
  it('signs passcode logins that verify with the registered public key', () => {
    const { brand, lob, deviceRegId, passcode } = SANDBOX_LOGINS.deviceRegIdPasscode
    const data = Buffer.from(passcodeSigningInput(brand, lob, deviceRegId, passcode), 'utf8')
    const signature = sign(null, data, SANDBOX_DEVICE_PRIVATE_KEY_PEM)
    expect(verify(null, data, SANDBOX_DEVICE_PUBLIC_KEY_PEM, signature)).toBe(true)
    expect(verify(null, Buffer.from('tampered'), SANDBOX_DEVICE_PUBLIC_KEY_PEM, signature)).toBe(false)
  })

  it('registers that public key with the deviceRegIdPasscode credential', () => {
    const credential = customer(SANDBOX_CUSTOMER_1_ID).credentials.find((c) => c.kind === 'deviceRegIdPasscode')
    expect(credential && 'publicKey' in credential ? credential.publicKey : undefined).toBe(SANDBOX_DEVICE_PUBLIC_KEY_PEM)
  })
})
