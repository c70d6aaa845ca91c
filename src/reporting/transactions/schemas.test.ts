import { describe, expect, it } from 'vitest'
import { catalogValue, type Transaction } from './catalog.js'
import { paymentMethodOf } from './payment-methods.js'
import { csvColumns, csvRecord } from './schemas.js'

// Group, field and code names come from imported files: names of built-in properties are names like any other.
describe('imported names that plain objects already answer', () => {
  it('a CSV column constructor.Name is a group of the record, not Object.constructor', () => {
    const record = csvRecord(csvColumns(['requestId', 'constructor.Name', 'toString.Value']), ['1', 'x', 'y']) as { fields: Record<string, Record<string, string>> }
    expect(Object.hasOwn(record.fields, 'constructor')).toBe(true)
    expect(record.fields['constructor']!['Name']).toBe('x')
    expect(record.fields['toString']!['Value']).toBe('y')
    expect((Object as unknown as Record<string, unknown>)['Value']).toBeUndefined()
  })

  it('a payment subtype or catalog field named like a built-in property is read as text', () => {
    expect(paymentMethodOf('constructor')).toEqual({ description: 'constructor', paymentMethod: 'constructor', paymentType: 'card' })
    const tx = { organizationId: 'o', requestId: '1', type: 'sale', requestTime: '2026-01-01T00:00:00.000Z', currency: 'USD', amount: '1.00', fields: {} } as Transaction
    expect(catalogValue(tx, 'constructor.name')).toBeUndefined()
    expect(catalogValue(tx, 'toString')).toBeUndefined()
  })
})
