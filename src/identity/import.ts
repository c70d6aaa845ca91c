// Identity's side of loading an operator's data file: the lookup keys new credentials will be stored under, the
// check that none exists yet, scrypt hashing, and the writes, which run inside the importer's transaction. The
// importer (a feature) calls these instead of reaching into identity's repository.
import { randomUUID } from 'node:crypto'
import type { Insertable } from 'kysely'
import { hashSecret } from '../platform/crypto.js'
import type { Executor } from '../platform/db/database.js'
import type { CredentialsTable, CustomersTable } from './tables.js'
import * as repo from './repository.js'
import { legacyPartyLookupKey, partyLookupKey, partyLookupSecret } from './secrets.js'
import type { NewCredential, NewCustomer } from './types.js'

/** A credential row ready to write: its secret already hashed. */
export type PreparedCredential = Insertable<CredentialsTable>
export type PreparedCustomer = Insertable<CustomersTable>

export interface CredentialRef<T> {
  brand: string
  lob: string
  credential: NewCredential
  ref: T
}

export interface IdentityImport {
  /** The key a credential is found by: unique per brand, lob and kind. */
  lookupKey(credential: NewCredential): string
  /** The first of `ids` already in the database. */
  firstExistingCustomer(db: Executor, ids: string[]): Promise<string | undefined>
  /** The ref of the first credential that already exists (a party credential under its legacy key included). */
  firstExistingCredential<T>(db: Executor, items: CredentialRef<T>[]): Promise<T | undefined>
  /** Hashes the secret (scrypt, about 50 ms) and builds the row. */
  prepareCredential(customer: Pick<NewCustomer, 'id' | 'brand' | 'lob'>, credential: NewCredential, now: string): Promise<PreparedCredential>
  prepareCustomer(customer: Pick<NewCustomer, 'id' | 'brand' | 'lob' | 'isBusiness'>, now: string): PreparedCustomer
  /** Writes, within the importer's transaction. */
  insertCustomers(trx: Executor, rows: PreparedCustomer[]): Promise<void>
  insertCredentials(trx: Executor, rows: PreparedCredential[]): Promise<void>
}

export function createIdentityImport(secretsKey: string): IdentityImport {
  const partyKey = partyLookupSecret(secretsKey)

  function lookupKey(credential: NewCredential): string {
    return credential.kind === 'partyIdentifiers' ? partyLookupKey(partyKey, credential.party) : credential.identifier
  }

  return {
    lookupKey,

    firstExistingCustomer: (db, ids) => repo.firstExistingCustomer(db, ids),

    async firstExistingCredential(db, items) {
      const refs = new Map<string, (typeof items)[number]['ref']>()
      const keys: repo.CredentialKey[] = []
      for (const { brand, lob, credential, ref } of items) {
        const lookups = [lookupKey(credential)]
        if (credential.kind === 'partyIdentifiers') lookups.push(legacyPartyLookupKey(credential.party))
        for (const lookup of lookups) {
          const key = { brand, lob, kind: credential.kind, lookupKey: lookup }
          keys.push(key)
          refs.set(JSON.stringify(key), ref)
        }
      }
      const found = await repo.firstExistingCredential(db, keys)
      return found && refs.get(JSON.stringify(found))
    },

    async prepareCredential(customer, credential, now) {
      // A party credential is proven by the mobile on record: the import schema requires one, and so does this.
      if (credential.kind === 'partyIdentifiers' && !credential.mobile) throw new Error('a partyIdentifiers credential needs a mobile')
      const secretHash =
        credential.kind === 'partyIdentifiers' ? await hashSecret(credential.mobile) : (credential.secretHash ?? (await hashSecret(credential.secret!)))
      return {
        id: randomUUID(),
        customer_id: customer.id,
        kind: credential.kind,
        brand: customer.brand,
        lob: customer.lob,
        lookup_key: lookupKey(credential),
        secret_hash: secretHash,
        public_key: credential.kind === 'deviceRegIdPasscode' ? credential.publicKey : null,
        token_type: null,
        restricted: credential.kind === 'partyIdentifiers' ? 1 : 0,
        failed_attempts: 0,
        locked_until: null,
        revoked_at: null,
        created_at: now,
      }
    },

    prepareCustomer: (customer, now) => ({ id: customer.id, brand: customer.brand, lob: customer.lob, is_business: customer.isBusiness ? 1 : 0, created_at: now }),

    insertCustomers: (trx, rows) => repo.insertCustomers(trx, rows),
    insertCredentials: (trx, rows) => repo.insertCredentials(trx, rows),
  }
}
