// Party-identifiers sign-in (issue 9): a keyed lookup hash, a mobile that must be on record and presented, and
// rows imported under the old unkeyed hash, which are found once and re-keyed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ImportError, importData } from '../../src/banking/accounts/import.js'
import { SANDBOX_LOGINS as L } from '../../src/banking/sandbox-data.js'
import { createIdentityImport } from '../../src/identity/import.js'
import type { PartyIdentifiers } from '../../src/identity/types.js'
import { legacyPartyLookupKey, partyLookupKey, partyLookupSecret } from '../../src/identity/secrets.js'
import { hashSecret } from '../../src/platform/crypto.js'
import { expectStatus } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const party = (p: { firstGivenName: string; surname: string; dateOfBirth: string; mobile?: string }) => ({
  loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'partyIdentifiers', partyIdentifiers: p } },
})
const post = (b: unknown) => t.call('POST', '/v2/auth?v=1', { body: b })
const sandboxParty: PartyIdentifiers = { firstGivenName: L.partyIdentifiers.firstGivenName, surname: L.partyIdentifiers.surname, dateOfBirth: L.partyIdentifiers.dateOfBirth }
const FAILURE = { status: { code: 'API-448', message: 'Gateway Authentication Failure' } }

/** A party credential written as an import from before the keyed hash would have left it. */
async function insertLegacyParty(customerId: string, who: PartyIdentifiers, mobile: string | undefined) {
  await t.db.kysely.insertInto('customers').values({ id: customerId, brand: 'nab', lob: 'nab', is_business: 0, created_at: t.clock.now().toISOString() }).execute()
  const id = `cred-${customerId}`
  await t.db.kysely
    .insertInto('credentials')
    .values({
      id,
      customer_id: customerId,
      kind: 'partyIdentifiers',
      brand: 'nab',
      lob: 'nab',
      lookup_key: legacyPartyLookupKey(who),
      // The old importer hashed '' when the file gave no mobile.
      secret_hash: await hashSecret(mobile ?? ''),
      public_key: null,
      token_type: null,
      restricted: 1,
      failed_attempts: 0,
      locked_until: null,
      revoked_at: null,
      created_at: t.clock.now().toISOString(),
    })
    .execute()
  return id
}

const lookupKeyOf = async (id: string) => (await t.db.kysely.selectFrom('credentials').select('lookup_key').where('id', '=', id).executeTakeFirstOrThrow()).lookup_key

describe('party identifiers', () => {
  it('sign in with the mobile on record, restricted to application tracking', async () => {
    const res = await post(party({ ...sandboxParty, mobile: L.partyIdentifiers.mobile }))
    expectStatus(res, 200, 'API-200')
    expect(res.json.loginResponse.userLevelFlags.isRestrictedToAppTracker).toBe(true)
  })

  it.each([
    ['no mobile', party(sandboxParty)],
    ['a wrong mobile', party({ ...sandboxParty, mobile: '0400000000' })],
  ])('%s → the uniform API-448', async (_label, b) => {
    const res = await post(b)
    expectStatus(res, 401, 'API-448')
    expect(res.json).toEqual(FAILURE)
  })

  it('are stored under an HMAC keyed from SECRETS_KEY, not the guessable SHA-256', async () => {
    const row = await t.db.kysely.selectFrom('credentials').select('lookup_key').where('kind', '=', 'partyIdentifiers').where('customer_id', '=', L.partyIdentifiers.customerId).executeTakeFirstOrThrow()
    expect(row.lookup_key).toBe(partyLookupKey(partyLookupSecret(t.config.secretsKey), sandboxParty))
    expect(row.lookup_key).not.toBe(legacyPartyLookupKey(sandboxParty))
  })

  it('a legacy row is found by its old key and re-keyed on the first successful sign-in only', async () => {
    const who = { firstGivenName: 'Legacy', surname: 'Holder', dateOfBirth: '19700101' }
    const id = await insertLegacyParty('legacy-1', who, '0411000111')
    expectStatus(await post(party({ ...who, mobile: '0499999999' })), 401, 'API-448')
    expect(await lookupKeyOf(id)).toBe(legacyPartyLookupKey(who))
    expectStatus(await post(party({ ...who, mobile: '0411000111' })), 200, 'API-200')
    expect(await lookupKeyOf(id)).toBe(partyLookupKey(partyLookupSecret(t.config.secretsKey), who))
    // Found by the keyed hash from now on.
    expectStatus(await post(party({ ...who, mobile: '0411000111' })), 200, 'API-200')
  })

  it('a legacy row with no mobile on record never signs in, with or without a mobile', async () => {
    const who = { firstGivenName: 'No', surname: 'Mobile', dateOfBirth: '19800202' }
    const id = await insertLegacyParty('legacy-2', who, undefined)
    expect(await post(party(who))).toMatchObject({ status: 401, json: FAILURE })
    expect(await post(party({ ...who, mobile: '0400000000' }))).toMatchObject({ status: 401, json: FAILURE })
    expect(await lookupKeyOf(id)).toBe(legacyPartyLookupKey(who))
  })

  it('the importer refuses a party credential without a mobile, and loads nothing', async () => {
    const file = {
      customers: [
        {
          id: 'no-mobile',
          brand: 'nab',
          lob: 'nab',
          isBusiness: false,
          credentials: [{ kind: 'partyIdentifiers', firstGivenName: 'Pat', surname: 'Example', dateOfBirth: '19900101' }],
          accounts: [],
        },
      ],
    }
    const deps = { db: t.db, clock: t.clock, identity: createIdentityImport(t.config.secretsKey) }
    const error = await importData(deps, file).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(ImportError)
    expect((error as ImportError).record).toBe('customers[0].credentials[0]')
    expect(await t.db.kysely.selectFrom('customers').select('id').where('id', '=', 'no-mobile').executeTakeFirst()).toBeUndefined()
  })

  it('the importer refuses a party credential that exists under its legacy key', async () => {
    const who = { firstGivenName: 'Twice', surname: 'Imported', dateOfBirth: '19600303' }
    await insertLegacyParty('legacy-3', who, '0422000222')
    const file = { customers: [{ id: 'again', brand: 'nab', lob: 'nab', isBusiness: false, credentials: [{ kind: 'partyIdentifiers', ...who, mobile: '0422000222' }], accounts: [] }] }
    const deps = { db: t.db, clock: t.clock, identity: createIdentityImport(t.config.secretsKey) }
    await expect(importData(deps, file)).rejects.toThrow(/customers\[0\] \(id again\)\.credentials\[0\], field kind: this credential already exists/)
  })
})
