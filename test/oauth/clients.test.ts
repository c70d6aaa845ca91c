// `finapi clients`: create (confidential, public, an application's own), list, revoke, and the rules a registration
// must follow; a client created by the command works against a server on the same database at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/platform/db/database.js'
import { runFinapi, startFinapiServer } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/database.js'
import { call } from '../support/harness.js'
import { basic } from '../support/oauth.js'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.drop())

const env = () => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn' })
const run = (...args: string[]) => runFinapi(args, env())

async function tokenCall(baseUrl: string, authorization: string, fields: Record<string, string>) {
  return call(baseUrl, '', 'POST', '/oauth2/v3/token', {
    headers: { 'x-svc-key': undefined, authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
}

describe('finapi clients', () => {
  it('create prints the client_id and the secret once; list shows no secret; the client works; revoke ends it', async () => {
    const created = await run('clients', 'create', '--name', 'Merchant partner', '--scope', 'reporting', '--redirect-uri', 'https://partner.example/cb', '--redirect-uri', 'http://localhost:9000/cb')
    expect(created.code, created.stderr).toBe(0)
    const id = /^Created OAuth client (\S+) \(Merchant partner\), confidential, scopes: reporting\.$/m.exec(created.stdout)?.[1]
    const clientId = /^client_id: (fc_[A-Za-z0-9_-]+)$/m.exec(created.stdout)?.[1]
    const secret = /^client_secret \(shown once, store it now\): (fcs_[A-Za-z0-9_-]+)$/m.exec(created.stdout)?.[1]
    expect({ id, clientId, secret }).toEqual({ id: expect.any(String), clientId: expect.any(String), secret: expect.any(String) })

    const listed = await run('clients', 'list')
    expect(listed.stdout).toContain(`${id}\tMerchant partner\t${clientId}\tconfidential\treporting\thttps://partner.example/cb http://localhost:9000/cb\tactive\t`)
    expect(listed.stdout).toMatch(/^sandbox\tSandbox application\tkey of application sandbox\tpublic\taccounts reporting\thttp:\/\/localhost\|127\.0\.0\.1 \(any port and path\)\tactive\t/m)
    expect(listed.stdout).not.toContain(secret!)

    const db = openDatabase(database.url)
    try {
      const dump = JSON.stringify(await db.kysely.selectFrom('oauth_clients').selectAll().execute())
      expect(dump).not.toContain(secret!)
    } finally {
      await db.close()
    }

    const server = await startFinapiServer(env())
    try {
      const ok = await tokenCall(server.baseUrl, basic(clientId!, secret!), { grant_type: 'client_credentials' })
      expect(ok.status, ok.text).toBe(200)
      expect(ok.json.scope).toBe('reporting')

      const revoked = await run('clients', 'revoke', id!)
      expect(revoked.code).toBe(0)
      expect(revoked.stdout).toContain(`Revoked OAuth client ${id}; its tokens no longer work.`)
      const refused = await tokenCall(server.baseUrl, basic(clientId!, secret!), { grant_type: 'client_credentials' })
      expect(refused.json).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' })
      const refresh = await tokenCall(server.baseUrl, basic(clientId!, secret!), { grant_type: 'refresh_token', refresh_token: ok.json.refresh_token })
      expect(refresh.status).toBe(500)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
    expect((await run('clients', 'list')).stdout).toMatch(new RegExp(`^${id}\\tMerchant partner\\t.*\\trevoked\\t`, 'm'))
    const again = await run('clients', 'revoke', id!)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`no active OAuth client with id ${id}`)
    // Six commands and a server, each a process of its own: 10–22 s on a busy 2-core machine, once over 30 s.
  }, 60_000)

  it('create --public prints no secret', async () => {
    const created = await run('clients', 'create', '--name', 'Mobile app', '--scope', 'accounts', '--redirect-uri', 'com.example.app:/oauth', '--public')
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/^Created OAuth client \S+ \(Mobile app\), public \(PKCE, no secret\), scopes: accounts\.$/m)
    expect(created.stdout).toMatch(/^client_id: fc_/m)
    expect(created.stdout).not.toContain('client_secret')
  })

  it('create --application makes the application\'s key its client_id', async () => {
    const key = await run('keys', 'create', '--name', 'Budget app')
    const appId = /Created application (\S+) /.exec(key.stdout)![1]!
    const created = await run('clients', 'create', '--name', 'Budget app', '--scope', 'accounts', '--redirect-uri', 'https://budget.example/cb', '--application', appId)
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toContain(`client_id: the key of application ${appId} (its x-svc-key)`)
    expect(created.stdout).toMatch(/^client_secret \(shown once, store it now\): fcs_/m)
    const twice = await run('clients', 'create', '--name', 'Budget app 2', '--scope', 'accounts', '--application', appId)
    expect(twice.code).toBe(1)
    expect(twice.stderr).toMatch(new RegExp(`application ${appId} already has client \\S+`))
  })

  // A command line that cannot be right is a usage error (exit 2, with the command's usage); a client the service
  // refuses is a failure (exit 1), in one line either way.
  it.each([
    ['no name', ['--scope', 'accounts'], 2, 'clients create needs --name <name>'],
    ['an unknown option', ['--name', 'X', '--scope', 'accounts', '--secret', 'mine'], 2, "unknown option '--secret'"],
    ['no scope', ['--name', 'X'], 1, 'a client needs at least one scope (accounts, reporting)'],
    ['an unknown scope', ['--name', 'X', '--scope', 'payments'], 1, 'unknown scope payments (scopes: accounts, reporting)'],
    ['an http redirect off the loopback', ['--name', 'X', '--scope', 'accounts', '--redirect-uri', 'http://partner.example/cb'], 1, 'redirect URI http://partner.example/cb must use https (http only on localhost or 127.0.0.1)'],
    ['a redirect with a fragment', ['--name', 'X', '--scope', 'accounts', '--redirect-uri', 'https://p.example/cb#x'], 1, 'must not contain a fragment'],
    ['a public client without a redirect', ['--name', 'X', '--scope', 'accounts', '--public'], 1, 'a public client needs at least one redirect URI'],
    ['an unknown application', ['--name', 'X', '--scope', 'accounts', '--application', 'nope'], 1, 'no active application with id nope'],
  ] as const)('create refuses %s', async (_label, args, code, message) => {
    const res = await run('clients', 'create', ...args)
    expect(res.code).toBe(code)
    const lines = res.stderr.trimEnd().split('\n')
    expect(lines[0]).toContain(message)
    if (code === 2) expect(lines).toEqual([expect.stringMatching(/^finapi: error: /), expect.stringMatching(/^usage: finapi clients create --name <name> .*; see finapi clients create --help$/)])
    else expect(lines).toEqual([expect.stringMatching(/^finapi: (?!error:)/)])
  })

  it('usage lists the clients commands', async () => {
    const res = await run('help')
    expect(res.stdout).toContain('clients create --name <name> --scope <scope>...')
    expect(res.stdout).toContain('clients list')
    expect(res.stdout).toContain('clients revoke <id>')
  })
})
