// The finapi commands of reporting's bearer authentication: registering a JWT certificate (keys create --jwt-cert),
// a client of an organization (clients create --org), merchant users (users create|list); and a production server
// refusing to start while any public sandbox identity (key, OAuth client, merchant user) is active, until revoked.
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFinapi, startFinapiServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'
import { makeCertificate, type TestCertificate } from '../support/reporting-jwt.js'

let database: TestDatabase
let dir: string
let cert: TestCertificate
beforeAll(async () => {
  database = await createTestDatabase()
  dir = mkdtempSync(join(tmpdir(), 'finapi-cli-'))
  cert = makeCertificate({ organization: 'testrest' })
})
afterAll(async () => {
  cert.remove()
  rmSync(dir, { recursive: true, force: true })
  await database.drop()
})

const SECRETS_KEY = 'reporting-auth-cli-test-secrets-key-0123456789'
const run = (args: string[], env: Record<string, string> = {}) => runFinapi(args, { MODE: 'sandbox', DATABASE_URL: database.url, ...env })
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

describe('finapi keys create --jwt-cert', () => {
  it('registers a certificate, lists it with its kid, revokes it', async () => {
    const created = await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', file('cert.pem', cert.pem)])
    expect(created.stderr).toBe('')
    expect(created.stdout).toContain(`Registered certificate for organization testrest: JWT kid ${cert.serialNumber}, valid until `)
    const id = /Key id: (\S+)/.exec(created.stdout)?.[1]
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await run(['keys', 'list'])).stdout).toMatch(new RegExp(`^${id}\\ttestrest\\tactive\\t\\S+\\tcertificate kid=${cert.serialNumber} until `, 'm'))
    const again = await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', file('cert.pem', cert.pem)])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`already registered as key ${id}`)
    expect((await run(['keys', 'revoke', id!])).stdout).toContain(`Revoked reporting key ${id}.`)
  })

  it('refuses a private key, a .p12, another organization with the same kid, no --org; allows rotation under one kid', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const withKey = await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', file('key.pem', cert.pem + privateKey.export({ type: 'pkcs8', format: 'pem' }))])
    expect(withKey.stderr).toContain('holds a private key')
    const p12 = await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', join(cert.keysDirectory, `${cert.keyFileName}.p12`)])
    expect(p12.stderr).toContain('openssl pkcs12 -in key.p12 -clcerts -nokeys -out cert.pem')
    const first = makeCertificate({ organization: 'testrest' })
    const second = makeCertificate({ organization: 'testrest', serialNumber: first.serialNumber })
    try {
      expect((await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', file('a.pem', first.pem)])).code).toBe(0)
      const clash = await run(['keys', 'create', '--org', 'othermerchant', '--jwt-cert', file('b.pem', second.pem)])
      expect(clash.stderr).toContain(`serialNumber ${first.serialNumber} is the kid of another organization's certificate`)
      // The same organization may rotate to a new certificate under the same kid.
      expect((await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', file('b.pem', second.pem)])).code).toBe(0)
    } finally {
      first.remove()
      second.remove()
    }
    expect((await run(['keys', 'create', '--jwt-cert', file('c.pem', cert.pem)])).stderr).toContain('keys create --jwt-cert needs --org <id>')
    expect((await run(['keys', 'create', '--org', 'testrest', '--jwt-cert', join(dir, 'missing.pem')])).stderr).toContain('cannot read')
  })
})

describe('finapi clients create --org and finapi users', () => {
  it('creates a reporting client of an organization, and refuses any other scope or an unknown organization', async () => {
    const created = await run(['clients', 'create', '--name', 'Acme reporting', '--scope', 'reporting', '--org', 'testrest'])
    expect(created.stdout).toMatch(/^Created OAuth client \S+ \(Acme reporting\), confidential, scopes: reporting, of organization testrest\.$/m)
    expect((await run(['clients', 'list'])).stdout).toMatch(/\tAcme reporting\t.*\ttestrest$/m)
    const banking = await run(['clients', 'create', '--name', 'X', '--scope', 'accounts', '--org', 'testrest'])
    expect(banking.stderr).toContain('a client of an organization is a reporting client: its only scope is reporting')
    expect((await run(['clients', 'create', '--name', 'X', '--scope', 'reporting', '--org', 'nosuchorg'])).stderr).toContain('no organization nosuchorg')
  })

  it('creates a merchant user with a password shown once, lists it, refuses a taken username', async () => {
    const created = await run(['users', 'create', '--org', 'testrest_acct', '--username', 'ops@acct'])
    expect(created.stdout).toMatch(/^Created merchant user ops@acct of organization testrest_acct \(customer mu_\S+, credential \S+\)\.$/m)
    const password = /Password \(shown once, store it now\): (\S+)/.exec(created.stdout)?.[1]
    expect(password).toHaveLength(24)
    const listed = (await run(['users', 'list'])).stdout
    expect(listed).toMatch(/^mu_\S+\ttestrest_acct\tops@acct\t\S+\tactive\t/m)
    expect(listed).toMatch(/^sandbox-merchant-user-testrest\ttestrest\ttestrest\t\S+\tactive\t/m)
    expect(listed).not.toContain(password)
    expect((await run(['users', 'create', '--org', 'testrest', '--username', 'ops@acct'])).stderr).toContain('a merchant user ops@acct exists')
    expect((await run(['users', 'create', '--org', 'testrest'])).stderr).toContain('users create needs --org <id> and --username <name>')
  })
})

describe('production and the sandbox identities', () => {
  it('refuses to start while any is active, naming each and how to revoke it; starts once all are revoked', async () => {
    const production = { MODE: 'production', SECRETS_KEY, LOG_LEVEL: 'warn' }
    const refused = await run(['serve'], production)
    expect(refused.code).toBe(1)
    const commands = [...refused.stderr.matchAll(/\(finapi ((?:keys|clients|credentials) revoke \S+)\)/g)].map((m) => m[1]!)
    expect(commands.filter((c) => c.startsWith('keys'))).toHaveLength(3)
    expect(commands).toContain('clients revoke sandbox-testrest-reporting')
    expect(commands).toContain('clients revoke sandbox-testrest-acct-partner')
    expect(commands.filter((c) => c.startsWith('credentials'))).toHaveLength(1)
    for (const command of commands) expect((await run(command.split(' '), production)).code, command).toBe(0)
    const server = await startFinapiServer({ ...production, DATABASE_URL: database.url })
    expect((await call(server.baseUrl, '', 'GET', '/health/ready')).status).toBe(200)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
  })
})
