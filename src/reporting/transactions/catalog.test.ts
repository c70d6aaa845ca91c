import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { catalogValue, splitCatalogName, type Transaction } from './catalog.js'

const tx: Transaction = {
  organizationId: 'testrest',
  requestId: '1',
  type: 'sale',
  requestTime: '2026-01-01T00:00:00.000Z',
  currency: 'USD',
  amount: '1.00',
  fields: { BillTo: { Email: 'a@example.com' }, 'Merchant-DefinedDataFields': { MerchantDefinedData1: 'x' } },
}

describe('catalog fields', () => {
  it('reads core columns and grouped fields by their catalog name', () => {
    expect(catalogValue(tx, 'Request.RequestID')).toBe('1')
    expect(catalogValue(tx, 'Request.MerchantID')).toBe('testrest')
    expect(catalogValue(tx, 'PaymentData.Amount')).toBe('1.00')
    expect(catalogValue(tx, 'BillTo.Email')).toBe('a@example.com')
    expect(catalogValue(tx, 'Merchant-DefinedDataFields.MerchantDefinedData1')).toBe('x')
    expect(catalogValue(tx, 'BillTo.Phone')).toBeUndefined()
    expect(catalogValue(tx, 'nodot')).toBeUndefined()
  })

  it('accepts every name of the published TransactionRequestClass catalog', () => {
    const names = JSON.parse(readFileSync(new URL('../../../docs/transaction-fields.json', import.meta.url), 'utf8')) as string[]
    expect(names).toHaveLength(503)
    expect(names.filter((n) => splitCatalogName(n) === undefined)).toEqual([])
  })
})
