// The operators' data file for `finapi import`: customers, their credentials and accounts, and exchange rates.
// This TypeBox schema validates the file, types the importer, and is published as docs/import.schema.json.
import { Type, type Static } from 'typebox'
import { SECRET_HASH_PATTERN } from '../../platform/crypto.js'
import { AccountListFields, Balance, DetailFields, CATEGORIES, QuickBalanceEntry } from './schemas.js'
import { APIDateString, APIRateString, APICurrencyString } from '../schemas.js'

const Str = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) })

/** Either the secret itself (hashed with scrypt on import) or an existing scrypt hash in finapi's format. */
const Secret = {
  secret: Type.Optional(Str(128, 'the password, passcode or key; hashed with scrypt on import, never stored')),
  secretHash: Type.Optional(Type.String({ pattern: SECRET_HASH_PATTERN, description: 'a hash from a previous finapi export: scrypt$N$r$p$salt$hash' })),
}

const strict = { additionalProperties: false } as const

export const ImportCredential = Type.Union([
  Type.Object({ kind: Type.Literal('usernamePassword'), username: Str(64), ...Secret }, strict),
  Type.Object({ kind: Type.Literal('ivrPasscode'), username: Str(64), ...Secret }, strict),
  Type.Object({ kind: Type.Literal('deviceRegIdPassword'), deviceRegId: Str(128), ...Secret }, strict),
  Type.Object({ kind: Type.Literal('deviceRegIdFingerprint'), deviceRegId: Str(128), ...Secret }, strict),
  Type.Object(
    {
      kind: Type.Literal('deviceRegIdPasscode'),
      deviceRegId: Str(128),
      ...Secret,
      publicKey: Type.String({ pattern: '^-----BEGIN PUBLIC KEY-----', description: "the device's Ed25519 public key, SPKI PEM" }),
    },
    strict,
  ),
  Type.Object(
    {
      kind: Type.Literal('partyIdentifiers'),
      firstGivenName: Str(100),
      surname: Str(100),
      dateOfBirth: APIDateString,
      mobile: Str(20, 'required: a party-identifiers login must send this mobile, and is refused without it'),
    },
    strict,
  ),
])
export type ImportCredential = Static<typeof ImportCredential>

export const ImportAccount = Type.Object(
  {
    id: Str(64, 'your identifier of the account, unique within the customer'),
    accountToken: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{16,128}$', description: 'the opaque token clients see; generated when absent' })),
    category: Type.Enum([...CATEGORIES]),
    groupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\w.-]+$' })),
    account: AccountListFields,
    balance: Balance,
    balanceThreshold: Type.Optional(QuickBalanceEntry.properties.balanceThreshold),
    details: DetailFields,
  },
  { ...strict, description: '`account.parentRef`, when set, names the `id` of the parent account of the same customer' },
)
export type ImportAccount = Static<typeof ImportAccount>

export const ImportCustomer = Type.Object(
  {
    id: Str(64, 'your customer identification number; unique in the file and the database'),
    brand: Str(32),
    lob: Str(32),
    isBusiness: Type.Boolean(),
    credentials: Type.Array(ImportCredential, { minItems: 1 }),
    accounts: Type.Array(ImportAccount),
  },
  strict,
)
export type ImportCustomer = Static<typeof ImportCustomer>

export const ImportFile = Type.Object(
  {
    exchangeRates: Type.Optional(Type.Array(Type.Object({ from: APICurrencyString, to: APICurrencyString, rate: APIRateString }, strict))),
    customers: Type.Array(ImportCustomer),
  },
  { ...strict, title: 'finapi import file', description: 'Customers, credentials, accounts and exchange rates for `finapi import`.' },
)
export type ImportFile = Static<typeof ImportFile>
