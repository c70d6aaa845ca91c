// Organizations and reporting keys as services and through the finapi command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/platform/db/database.js'
import { DomainError } from '../../src/platform/errors.js'
import { runFinapi } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

describe('organizations', () => {
  it('has the sandbox tree, and "may X act for Y" means Y is X or below it', async () => {
    const { organizations } = t.app.services
    expect(await organizations.mayActFor('testrest', 'testrest')).toBe(true)
    expect(await organizations.mayActFor('testrest_acct', 'testrest_two')).toBe(true)
    expect(await organizations.mayActFor('testrest_reseller', 'testrest')).toBe(true)
    expect(await organizations.mayActFor('testrest', 'testrest_acct')).toBe(false)
    expect(await organizations.mayActFor('testrest', 'testrest_two')).toBe(false)
    expect(await organizations.mayActFor('othermerchant', 'testrest')).toBe(false)
    expect(await organizations.mayActFor('testrest', 'nosuchorg')).toBe(false)
  })

  it('refuses a bad id, an unknown parent, a misplaced type and a taken id', async () => {
    const { organizations } = t.app.services
    const reason = (p: Promise<unknown>) => p.then(() => 'ok', (e: DomainError) => e.kind)
    expect(await reason(organizations.create({ id: 'bad id', type: 'merchant' }))).toBe('invalid')
    expect(await reason(organizations.create({ id: 'm9', type: 'merchant', parentId: 'nosuchorg' }))).toBe('invalid')
    expect(await reason(organizations.create({ id: 'a9', type: 'account', parentId: 'testrest' }))).toBe('invalid')
    expect(await reason(organizations.create({ id: 'testrest', type: 'merchant' }))).toBe('conflict')
    expect(await reason(organizations.create({ id: 'm9', type: 'merchant', parentId: 'testrest_reseller' }))).toBe('ok')
  })

  it('stores a reporting key sealed: the secret is nowhere in its row', async () => {
    const { key, secret } = await t.app.services.reportingKeys.create('testrest')
    const row = await t.db.kysely.selectFrom('reporting_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow()
    expect(Buffer.from(secret, 'base64')).toHaveLength(32)
    expect(JSON.stringify(row)).not.toContain(secret)
    expect((await t.app.services.reportingKeys.signingKey(key.id))?.secret.toString('base64')).toBe(secret)
    // One bit of the tag flipped (rewriting its last characters left it as it was once in a few hundred keys: the
    // last base64url character holds only two of the tag's bits).
    const parts = row.secret_sealed.split('.')
    const tag = Buffer.from(parts[3]!, 'base64url')
    tag[0] = tag[0]! ^ 1
    const tampered = [...parts.slice(0, 3), tag.toString('base64url')].join('.')
    expect(tampered).not.toBe(row.secret_sealed)
    // Written through another connection, as someone editing the database would: the server's own connection does
    // not see its own writes move SQLite's data_version (platform/db/changes.ts).
    const other = openDatabase(t.config.databaseUrl)
    try {
      await other.kysely.updateTable('reporting_keys').set({ secret_sealed: tampered }).where('id', '=', key.id).execute()
    } finally {
      await other.close()
    }
    // A server reads data_version once per turn of its event loop (a call arrives in a turn of its own).
    await new Promise((resolve) => setImmediate(resolve))
    expect(await t.app.services.reportingKeys.signingKey(key.id)).toBeUndefined()
  })
})

describe('finapi orgs and keys', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(() => database.drop())
  const run = (args: string[]) => runFinapi(args, { MODE: 'sandbox', DATABASE_URL: database.url })

  it('creates organizations and a reporting key shown once; lists both kinds of key; revokes either', async () => {
    expect((await run(['orgs', 'create', '--id', 'acme_res', '--type', 'reseller'])).code).toBe(0)
    const merchant = await run(['orgs', 'create', '--id', 'acme', '--type', 'merchant', '--parent', 'acme_res', '--name', 'Acme'])
    expect(merchant.stdout).toContain('Created merchant acme under acme_res (Acme).')
    expect((await run(['orgs', 'list'])).stdout).toMatch(/^acme\tmerchant\tacme_res\tAcme\t/m)
    const created = await run(['keys', 'create', '--org', 'acme'])
    const id = /Key id: (\S+)/.exec(created.stdout)?.[1]
    const secret = /Shared secret \(shown once, store it now\): (\S+)/.exec(created.stdout)?.[1]
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Buffer.from(secret!, 'base64')).toHaveLength(32)
    const listed = (await run(['keys', 'list'])).stdout
    expect(listed).toMatch(new RegExp(`^${id}\\tacme\\tactive\\t`, 'm'))
    expect(listed).toContain('sandbox\tShared sandbox key')
    expect(listed).not.toContain(secret!)
    expect((await run(['keys', 'revoke', id!])).stdout).toContain(`Revoked reporting key ${id}.`)
    expect((await run(['keys', 'list'])).stdout).toMatch(new RegExp(`^${id}\\tacme\\trevoked\\t`, 'm'))
    const unknownOrg = await run(['keys', 'create', '--org', 'nosuchorg'])
    expect(unknownOrg.code).toBe(1)
    expect(unknownOrg.stderr).toContain('no organization nosuchorg')
  })
})
