// Loads an operator's data file (see import-schema.ts) all or nothing: the whole file is validated, structurally
// and against the database, before one transaction writes it. The first problem found is reported with the
// record and the field. The sandbox data is loaded through this same path.
import { randomUUID } from 'node:crypto'
import type { Insertable } from 'kysely'
import { Value } from 'typebox/value'
import type { Clock } from '../../platform/clock.js'
import { randomSecret } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import type { AccountsTable } from '../tables.js'
import type { IdentityImport, PreparedCredential } from '../../identity/import.js'
import type { NewCredential } from '../../identity/types.js'
import { ImportFile, type ImportAccount, type ImportCredential, type ImportCustomer } from './import-schema.js'
import * as repo from './repository.js'
import { BALANCE_KINDS, DETAIL_KINDS } from './schemas.js'

export class ImportError extends Error {
  override name = 'ImportError'
  constructor(
    readonly record: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${record}${field ? `, field ${field}` : ''}: ${reason}`)
  }
}

export type Progress = (phase: 'validating' | 'hashing' | 'writing', done: number, total: number) => void

export interface ImportSummary {
  customers: number
  credentials: number
  accounts: number
  exchangeRates: number
}

const BATCH = 500
const HASH_CONCURRENCY = 4

export interface ImportDeps {
  db: Pick<Db, 'kysely'>
  clock: Clock
  /** Identity's side: credential lookup keys, hashing, and the customer and credential writes. */
  identity: IdentityImport
}

export async function importData(deps: ImportDeps, data: unknown, onProgress: Progress = () => {}): Promise<ImportSummary> {
  const file = checkStructure(data)
  const { db, clock, identity } = deps
  const now = clock.now().toISOString()

  // ---- Semantic checks within the file ----
  const customerIds = new Map<string, string>()
  const tokens = new Map<string, string>()
  const lookups = new Map<string, string>()
  const plans: { customer: ImportCustomer; record: string; accountTokens: Map<string, string> }[] = []
  file.customers.forEach((customer, i) => {
    const record = `customers[${i}] (id ${customer.id})`
    if (customerIds.has(customer.id)) throw new ImportError(record, 'id', `appears twice in the file (also ${customerIds.get(customer.id)})`)
    customerIds.set(customer.id, record)
    customer.credentials.forEach((credential, j) => {
      const key = JSON.stringify([customer.brand, customer.lob, credential.kind, identity.lookupKey(newCredential(credential))])
      const where = `${record}.credentials[${j}]`
      if (lookups.has(key)) throw new ImportError(where, 'kind', `the same ${credential.kind} credential is also at ${lookups.get(key)}`)
      lookups.set(key, where)
      if (credential.kind !== 'partyIdentifiers' && (credential.secret === undefined) === (credential.secretHash === undefined)) {
        throw new ImportError(where, 'secret', 'give exactly one of secret and secretHash')
      }
    })
    const accountTokens = new Map<string, string>()
    customer.accounts.forEach((account, j) => {
      const where = `${record}.accounts[${j}] (id ${account.id})`
      if (accountTokens.has(account.id)) throw new ImportError(where, 'id', 'appears twice for this customer')
      const token = account.accountToken ?? randomSecret(32)
      if (tokens.has(token)) throw new ImportError(where, 'accountToken', `is also used at ${tokens.get(token)}`)
      tokens.set(token, where)
      accountTokens.set(account.id, token)
      checkAccount(account, where)
    })
    customer.accounts.forEach((account, j) => {
      const parent = account.account.parentRef
      if (parent !== undefined && (!accountTokens.has(parent) || parent === account.id)) {
        throw new ImportError(`${record}.accounts[${j}] (id ${account.id})`, 'account.parentRef', `names no other account of this customer: ${parent}`)
      }
    })
    plans.push({ customer, record, accountTokens })
    if (i % 1000 === 999) onProgress('validating', i + 1, file.customers.length)
  })
  onProgress('validating', file.customers.length, file.customers.length)

  // ---- Checks against what the database already holds ----
  for (const chunk of chunks([...customerIds.keys()], BATCH)) {
    const found = await identity.firstExistingCustomer(db.kysely, chunk)
    if (found !== undefined) throw new ImportError(customerIds.get(found)!, 'id', 'already exists in the database')
  }
  for (const chunk of chunks([...tokens.keys()], BATCH)) {
    const found = await repo.firstExistingAccountToken(db.kysely, chunk)
    if (found !== undefined) throw new ImportError(tokens.get(found)!, 'accountToken', 'is already used in the database')
  }
  const credentialRefs = plans.flatMap(({ customer, record }) =>
    customer.credentials.map((credential, j) => ({ brand: customer.brand, lob: customer.lob, credential: newCredential(credential), ref: `${record}.credentials[${j}]` })),
  )
  for (const chunk of chunks(credentialRefs, BATCH)) {
    const found = await identity.firstExistingCredential(db.kysely, chunk)
    if (found !== undefined) throw new ImportError(found, 'kind', 'this credential already exists in the database')
  }

  // ---- Hash secrets (the slow part: scrypt on the thread pool) ----
  const pending = plans.flatMap(({ customer }) => customer.credentials.map((credential) => ({ customer, credential })))
  const credentialRows: PreparedCredential[] = new Array(pending.length)
  let done = 0
  let next = 0
  await Promise.all(
    Array.from({ length: HASH_CONCURRENCY }, async () => {
      while (next < pending.length) {
        const index = next++
        const { customer, credential } = pending[index]!
        credentialRows[index] = await identity.prepareCredential(customer, newCredential(credential), now)
        if (++done % 100 === 0) onProgress('hashing', done, pending.length)
      }
    }),
  )
  onProgress('hashing', pending.length, pending.length)

  // ---- Write everything in one transaction ----
  const customerRows = plans.map(({ customer }) => identity.prepareCustomer(customer, now))
  const accountRows: Insertable<AccountsTable>[] = plans.flatMap(({ customer, accountTokens }) =>
    customer.accounts.map((account, position) => accountRow(customer, account, position, accountTokens)),
  )
  const total = customerRows.length + credentialRows.length + accountRows.length
  let written = 0
  const writeAll = async <T>(rows: T[], write: (chunk: T[]) => Promise<void>) => {
    for (const chunk of chunks(rows, BATCH)) {
      await write(chunk)
      written += chunk.length
      onProgress('writing', written, total)
    }
  }
  await db.kysely.transaction().execute(async (trx) => {
    for (const rate of file.exchangeRates ?? []) await repo.upsertExchangeRate(trx, rate.from, rate.to, rate.rate)
    await writeAll(customerRows, (chunk) => identity.insertCustomers(trx, chunk))
    await writeAll(credentialRows, (chunk) => identity.insertCredentials(trx, chunk))
    await writeAll(accountRows, (chunk) => repo.insertAccounts(trx, chunk))
  })

  return { customers: customerRows.length, credentials: credentialRows.length, accounts: accountRows.length, exchangeRates: file.exchangeRates?.length ?? 0 }
}

function checkStructure(data: unknown): ImportFile {
  if (Value.Check(ImportFile, data)) return data
  const errors = [...Value.Errors(ImportFile, data)]
  // The deepest path is the most precise (a union reports its branches' failures and then itself).
  const error = errors.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a), errors[0]!)
  const parts = error.instancePath.split('/').filter(Boolean)
  const recordParts: string[] = []
  let field = parts
  // The record is the innermost customers[i] / accounts[j] / credentials[j]; the rest is the field.
  for (let k = 0; k < parts.length - 1; k++) {
    if (['customers', 'accounts', 'credentials', 'exchangeRates'].includes(parts[k]!) && /^\d+$/.test(parts[k + 1]!)) {
      recordParts.push(`${parts[k]}[${parts[k + 1]}]`)
      field = parts.slice(k + 2)
      k++
    }
  }
  const missing = (error.params as { requiredProperties?: string[] }).requiredProperties
  const fieldName = [...field, ...(missing ?? [])].join('.')
  throw new ImportError(recordParts.join('.') || 'file', fieldName, error.message)
}

function checkAccount(account: ImportAccount, where: string): void {
  const one = (doc: Record<string, unknown>, kinds: readonly string[], named: string | undefined, field: string) => {
    const present = kinds.filter((k) => doc[k] !== undefined)
    if (present.length !== 1 || present[0] !== named) throw new ImportError(where, `${field}.apiStructType`, `must name the one member present (found ${present.join(', ') || 'none'})`)
  }
  one(account.balance, BALANCE_KINDS, account.balance.apiStructType, 'balance')
  one(account.details, DETAIL_KINDS, account.details.apiStructType, 'details')
  const shapes = ['accountApca', 'cardAccount', 'packageAccount']
  if (account.account.apiStructType !== undefined) one(account.account, shapes, account.account.apiStructType, 'account')
  if (account.account.category !== undefined && account.account.category !== account.category) {
    throw new ImportError(where, 'account.category', `differs from the account's category ${account.category}`)
  }
}

/** The import file's credential as identity takes it. */
function newCredential(credential: ImportCredential): NewCredential {
  switch (credential.kind) {
    case 'partyIdentifiers':
      return { kind: credential.kind, party: { firstGivenName: credential.firstGivenName, surname: credential.surname, dateOfBirth: credential.dateOfBirth }, mobile: credential.mobile }
    case 'deviceRegIdPasscode':
      return { kind: credential.kind, identifier: credential.deviceRegId, secret: credential.secret, secretHash: credential.secretHash, publicKey: credential.publicKey }
    case 'usernamePassword':
    case 'ivrPasscode':
      return { kind: credential.kind, identifier: credential.username, secret: credential.secret, secretHash: credential.secretHash }
    default:
      return { kind: credential.kind, identifier: credential.deviceRegId, secret: credential.secret, secretHash: credential.secretHash }
  }
}

function accountRow(customer: ImportCustomer, account: ImportAccount, position: number, tokens: Map<string, string>): Insertable<AccountsTable> {
  const list = { ...account.account, category: account.category }
  if (list.parentRef !== undefined) list.parentRef = tokens.get(list.parentRef)!
  return {
    id: randomUUID(),
    customer_id: customer.id,
    account_token: tokens.get(account.id)!,
    position,
    category: account.category,
    account_type: account.account.accountType,
    group_id: account.groupId ?? null,
    is_visible: account.account.isVisible === false ? 0 : 1,
    list_json: JSON.stringify(list),
    balance_json: JSON.stringify(account.balance),
    threshold_json: account.balanceThreshold ? JSON.stringify(account.balanceThreshold) : null,
    details_json: JSON.stringify(account.details),
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
