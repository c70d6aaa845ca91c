// The banking interface's shared data types (spec: "Shared data types"), as TypeBox string schemas. Amounts are
// strings end to end: they are validated by pattern here and never converted to a JavaScript number.
import { Type } from 'typebox'

export const APIAmountString = Type.String({ pattern: '^-?\\d{1,16}\\.\\d{2}$', description: 'APIAmountString: up to 16 digits, exactly 2 decimals, may be negative', examples: ['1234.56'] })
export const APICurrencyAmountString = Type.String({ pattern: '^-?\\d{1,16}(\\.\\d{1,3})?$', description: 'APICurrencyAmountString: up to 16 digits, up to 3 decimals' })
export const APIRateString = Type.String({ pattern: '^\\d{1,16}(\\.\\d{1,16})?$', description: 'APIRateString' })
export const APICurrencyString = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' })
export const APIDateTimeUTCString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$', description: 'RFC 3339 date-time in UTC' })
export const APIDateString = Type.String({ pattern: '^\\d{8}$', description: 'YYYYMMDD' })
export const APIPCIString = Type.String({ pattern: '^\\d{6}x{6}\\d{4}$', description: 'masked card number: 6 digits, xxxxxx, 4 digits' })
export const APIBalanceStatusString = Type.Enum(['OK', 'N/A', 'Unavailable'])

/** `{currency, amount}` with the amount as a string. */
export const Money = Type.Object({ currency: APICurrencyString, amount: APICurrencyAmountString }, { additionalProperties: false })

// The shapes every banking object is written with.
export const strict = { additionalProperties: false } as const
/** A required string of 1 to `max` characters. */
export const Str = (max = 200) => Type.String({ minLength: 1, maxLength: max })
export const Opt = Type.Optional
