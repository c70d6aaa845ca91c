// The real command-line tool and server processes: key management, two servers sharing one database, and a
// graceful shutdown on SIGTERM.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './support/database.js'
import { runFinapi, startFinapiServer } from './support/cli.js'
import { call } from './support/harness.js'
import { SESSION_CACHE_MS } from '../src/identity/service.js'
import { SANDBOX_CUSTOMER_1_ID } from '../src/banking/sandbox-data.js'
import { expectStatus } from './support/banking.js'
import { openDatabase } from '../src/platform/db/database.js'
import { TEMP_STALE_MS } from '../src/platform/blobs/directory-store.js'

const loginBody = {
  loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } },
}

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.drop())

const env = (extra: Record<string, string> = {}) => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'info', ...extra })
const run = (args: string[], extra: Record<string, string> = {}) => runFinapi(args, env(extra))
const startServer = (extra: Record<string, string> = {}) => startFinapiServer(env(extra))

describe('finapi command-line tool', () => {
  it('migrate applies the schema and is idempotent', async () => {
    const first = await run(['migrate'])
    expect(first.code).toBe(0)
    // A fresh database: it names what it applied, in order (it used to claim it was up to date).
    expect(first.stdout).toMatch(/^Applied: 0001_foundation, 0002_banking, 0003_oauth, 0004_housekeeping\b/m)
    const second = await run(['migrate'])
    expect(second.code).toBe(0)
    expect(second.stdout).toContain('Database is up to date.')
  })

  it('keys create prints the key once; list shows only its prefix; revoke revokes it', async () => {
    const created = await run(['keys', 'create', '--name', 'Partner app'])
    expect(created.code).toBe(0)
    const key = /Key \(shown once, store it now\): (fk_\S+)/.exec(created.stdout)?.[1]
    const id = /Created application (\S+) /.exec(created.stdout)?.[1]
    expect(key).toBeDefined()
    const listed = await run(['keys', 'list'])
    expect(listed.stdout).toContain('Partner app')
    expect(listed.stdout).toContain(key!.slice(0, 9))
    expect(listed.stdout).not.toContain(key!)
    const revoked = await run(['keys', 'revoke', id!])
    expect(revoked.code).toBe(0)
    expect((await run(['keys', 'list'])).stdout).toMatch(new RegExp(`${id}\\tPartner app\\t\\S+\\trevoked`))
    const again = await run(['keys', 'revoke', id!])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`no active application with id ${id}`)
  })

  it('rejects a bad environment variable with a message naming it', async () => {
    const res = await run(['migrate'], { PORT: 'eighty' })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('Invalid environment variable PORT="eighty"')
  })

  it('refuses production with sandbox defaults', async () => {
    const res = await run(['serve'], { MODE: 'production', SANDBOX_API_KEY: 'sandbox-key-finapi' })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('SANDBOX_API_KEY')
  })

  it('rejects an unknown command in one line and the usage, exit 2', async () => {
    const res = await run(['frobnicate'])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe("finapi: error: unknown command 'frobnicate'\nusage: finapi [options] [command]; see finapi --help\n")
  })
})

describe('finapi prune', () => {
  it('deletes expired rows now and leaves live ones', async () => {
    expect((await run(['migrate'])).code).toBe(0) // in sandbox mode this loads the sandbox customers too
    const db = openDatabase(database.url)
    try {
      const session = (token: string, expires: string) => ({
        token_hash: token,
        customer_id: SANDBOX_CUSTOMER_1_ID,
        restricted: 0,
        expires_at: expires,
        revoked_at: null,
        created_at: '2020-01-01T00:00:00.000Z',
        credential_id: null,
      })
      await db.kysely.insertInto('sessions').values([session('prune-test-old', '2020-01-01T00:15:00.000Z'), session('prune-test-live', '2999-01-01T00:00:00.000Z')]).execute()
      const res = await run(['prune'])
      expect(res.code, res.stderr).toBe(0)
      expect(res.stdout).toMatch(/^Deleted: \d+ sessions, \d+ revoked soft credentials, \d+ sign-in failures per source, \d+ oauth consents and codes, \d+ oauth tokens and grants, \d+ oauth pushed requests, \d+ expired reports, \d+ report temp files, \d+ webhook notifications, \d+ request log calls, \d+ console sessions, \d+ used credentials, \d+ finished jobs\.$/m)
      expect(Number(/Deleted: (\d+) sessions/.exec(res.stdout)![1])).toBeGreaterThanOrEqual(1)
      const left = (await db.kysely.selectFrom('sessions').select('token_hash').where('token_hash', 'like', 'prune-test-%').execute()).map((r) => r.token_hash)
      expect(left).toEqual(['prune-test-live'])
    } finally {
      await db.close()
    }
  })

  it("deletes a report temp file a killed generation left, once no live write can own it, and leaves a younger one", async () => {
    const store = mkdtempSync(join(tmpdir(), 'finapi-prune-store-'))
    try {
      mkdirSync(join(store, 'tmp'))
      const stale = new Date(Date.now() - TEMP_STALE_MS - 60_000)
      writeFileSync(join(store, 'tmp', 'b2c1a3de-0000-4000-8000-000000000001'), 'half a report')
      utimesSync(join(store, 'tmp', 'b2c1a3de-0000-4000-8000-000000000001'), stale, stale)
      writeFileSync(join(store, 'tmp', 'b2c1a3de-0000-4000-8000-000000000002'), 'a report being written')
      const res = await run(['prune'], { REPORT_STORE: 'directory', REPORT_STORE_DIR: store })
      expect(res.code, res.stderr).toBe(0)
      expect(res.stdout).toContain(' 1 report temp files,')
      expect(readdirSync(join(store, 'tmp'))).toEqual(['b2c1a3de-0000-4000-8000-000000000002'])
    } finally {
      rmSync(store, { recursive: true, force: true })
    }
  })
})

describe('the production build', () => {
  it('serves from dist/ as plain JavaScript, with no loader in the process', async () => {
    const server = await startServer()
    try {
      // The process's own command line: node, the bin script, serve; no --import/--loader (tsx is a dev tool only).
      const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
      expect(argv.slice(1)).toEqual([fileURLToPath(new URL('../bin/finapi.js', import.meta.url)), 'serve'])
      expect(readFileSync(new URL('../bin/finapi.js', import.meta.url), 'utf8')).toContain("'../dist/cli.js'")
      expect((await call(server.baseUrl, 'sandbox-key-finapi', 'GET', '/health/ready')).status).toBe(200)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })
})

describe('the finapi command', () => {
  it("is npm start's: a shell script that execs the build with glibc's malloc kept to two arenas, a value given winning", async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> }
    expect(pkg.scripts['start']).toBe('bin/finapi serve')
    expect(pkg.bin['finapi']).toBe('bin/finapi')
    const environment = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    for (const [given, expected] of [[undefined, '2'], ['4', '4']] as const) {
      const server = await startFinapiServer(env(given ? { MALLOC_ARENA_MAX: given } : {}), { deployed: true })
      try {
        // exec: the shell's process became Node's, running the same bin script as `node bin/finapi.js serve`.
        const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
        expect(argv.slice(1)).toEqual([fileURLToPath(new URL('../bin/finapi.js', import.meta.url)), 'serve'])
        expect(environment(server.child.pid!)).toContain(`MALLOC_ARENA_MAX=${expected}`)
        expect((await call(server.baseUrl, 'sandbox-key-finapi', 'GET', '/health/ready')).status).toBe(200)
      } finally {
        server.child.kill('SIGTERM')
        await server.exited
      }
    }
  })
})

describe('logs for people', () => {
  it('LOG_FORMAT=pretty (the default on a terminal) writes one short line per request, a refusal included, and keeps secrets out', async () => {
    const server = await startServer({ LOG_FORMAT: 'pretty' })
    try {
      await call(server.baseUrl, 'sandbox-key-finapi', 'GET', '/v2/accounts?v=1&password=hunter2', { headers: { authorization: 'any-string', 'x-correlationid': 'corr-ok' } })
      await call(server.baseUrl, 'sandbox-key-finapi', 'GET', '/v2/accounts?v=1', { headers: { 'x-correlationid': 'corr-refused' } })
      server.child.kill('SIGTERM')
      await server.exited
      const output = server.output()
      const lines = output.split('\n').filter((l) => l.includes('/v2/accounts'))
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} 200 GET \/v2\/accounts\?v=1&password=\[redacted\] \d+\.\d ms corr-ok$/)
      expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} 401 GET \/v2\/accounts\?v=1 \d+\.\d ms API-448 corr-refused$/)
      expect(output).toMatch(/INFO {2}shut down cleanly/)
      expect(output).not.toContain('{"level"')
      expect(output).not.toContain('hunter2')
    } finally {
      server.child.kill('SIGTERM')
    }
  })
})

describe('request logs as a collector reads them (JSON, stdout a pipe)', () => {
  const completed = (output: string) => output.split('\n').filter((l) => l.includes('"request completed"'))

  it('writes one JSON line per request through the buffer: a quiet server\'s within its flush time, a burst\'s by the end of a shutdown', async () => {
    const server = await startServer()
    const get = (path: string) => call(server.baseUrl, 'sandbox-key-finapi', 'GET', path, { headers: { authorization: 'any-string' } })
    try {
      expect((await get('/v2/accounts?v=1&password=hunter2')).status).toBe(200)
      // Held at most 250 ms: it appears with no other request and no shutdown.
      for (let i = 0; i < 100 && completed(server.output()).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
      expect(completed(server.output())).toHaveLength(1)
      // 300 lines (about 100 KB: one full chunk written on the way, the rest held), then SIGTERM at once.
      const burst = await Promise.all(Array.from({ length: 300 }, (_, i) => get(`/v2/accounts?v=1&n=${i}`)))
      expect(burst.every((r) => r.status === 200)).toBe(true)
      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
      const lines = completed(server.output()).map((l) => JSON.parse(l))
      expect(lines).toHaveLength(301)
      expect(lines[0].req.url).toBe('/v2/accounts?v=1&password=[redacted]')
      expect(new Set(lines.slice(1).map((l) => l.req.url))).toEqual(new Set(burst.map((_, i) => `/v2/accounts?v=1&n=${i}`)))
      for (const line of lines) expect(line).toMatchObject({ level: 30, res: { statusCode: 200 }, req: { method: 'GET', userAgent: 'finapi-tests/1.0' } })
      expect(server.output()).not.toContain('hunter2')
    } finally {
      server.child.kill('SIGTERM')
    }
  })
})

describe('finapi credentials', () => {
  it('lists a customer\'s credentials without secrets and revokes a soft credential, which then fails to sign in and whose sessions end', async () => {
    const server = await startServer()
    try {
      const key = 'sandbox-key-finapi'
      const login = await call(server.baseUrl, key, 'POST', '/v2/auth?v=1', { body: loginBody })
      const authorization = login.json.loginResponse.tokens[0].value as string
      const soft = await call(server.baseUrl, key, 'POST', '/v2/token?v=1', { headers: { authorization }, body: { tokenRequest: { type: 'touch' } } })
      const softToken = soft.json.tokenResponse.token as string
      const withSoft = { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'token', token: { token: softToken } } } }
      const softLogin = await call(server.baseUrl, key, 'POST', '/v2/auth?v=1', { body: withSoft })
      expect(softLogin.status).toBe(200)
      const softSession = { authorization: softLogin.json.loginResponse.tokens[0].value as string }
      expect((await call(server.baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: softSession })).status).toBe(200)

      const listed = await run(['credentials', 'list', SANDBOX_CUSTOMER_1_ID])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain('usernamePassword\tnab/nab\t-\tactive')
      expect(listed.stdout).not.toContain(softToken)
      const id = /^(\S+)\ttoken \(touch\)\tnab\/nab\t-\tactive/m.exec(listed.stdout)?.[1]
      expect(id).toBeDefined()

      expect((await run(['credentials', 'revoke', id!])).code).toBe(0)
      const revokedAt = Date.now()
      expectStatus(await call(server.baseUrl, key, 'POST', '/v2/auth?v=1', { body: withSoft }), 401, 'API-448')
      // The session it opened ends too: at once in the database, in the server within its session cache's second.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, SESSION_CACHE_MS + 100 - (Date.now() - revokedAt))))
      expectStatus(await call(server.baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: softSession }), 401, 'API-448')
      // The password session, opened by another credential, goes on.
      expect((await call(server.baseUrl, key, 'GET', '/v2/accounts?v=1', { headers: { authorization } })).status).toBe(200)
      expect((await run(['credentials', 'list', SANDBOX_CUSTOMER_1_ID])).stdout).toMatch(new RegExp(`^${id}\ttoken \\(touch\\)\tnab/nab\t-\trevoked`, 'm'))
      const again = await run(['credentials', 'revoke', id!])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain(`no active credential with id ${id}`)
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })
})

describe(`two server processes on one ${TEST_DIALECT} database`, () => {
  it('both serve, accept a key created by a third process, and shut down gracefully on SIGTERM', async () => {
    const [a, b] = await Promise.all([startServer(), startServer()])
    try {
      expect(a.output()).toContain('Sandbox key (x-svc-key): sandbox-key-finapi')
      expect(a.output()).toContain('/docs')
      // A key created by a third process is accepted by both servers.
      const created = await run(['keys', 'create', '--name', 'Shared'])
      const key = /(fk_\S+)/.exec(created.stdout)![1]!
      for (const server of [a, b]) {
        const res = await call(server.baseUrl, key, 'GET', '/v2/unknown?v=1')
        expect(res.json.status.code).toBe('API-404') // past the key check: the key is known to this process
        const ready = await call(server.baseUrl, key, 'GET', '/health/ready')
        expect(ready.status).toBe(200)
      }
    } finally {
      a.child.kill('SIGTERM')
      b.child.kill('SIGTERM')
    }
    expect(await a.exited).toBe(0)
    expect(await b.exited).toBe(0)
    expect(a.output()).toContain('shut down cleanly')
  })

  it('a logout on one server takes effect there at once and on the other within SESSION_CACHE_MS', async () => {
    const [a, b] = await Promise.all([startServer({ SANDBOX_STRICT_TOKENS: 'true' }), startServer({ SANDBOX_STRICT_TOKENS: 'true' })])
    try {
      const login = await call(a.baseUrl, 'sandbox-key-finapi', 'POST', '/v2/auth?v=1', { body: loginBody })
      const authorization = login.json.loginResponse.tokens[0].value as string
      const read = (server: { baseUrl: string }) => call(server.baseUrl, 'sandbox-key-finapi', 'GET', '/v2/accounts?v=1', { headers: { authorization } })
      expect((await read(a)).status).toBe(200)
      expect((await read(b)).status).toBe(200) // b now remembers the session
      expect((await call(a.baseUrl, 'sandbox-key-finapi', 'DELETE', '/v2/auth?v=1', { headers: { authorization } })).status).toBe(200)
      expect((await read(a)).status).toBe(401)
      const loggedOutAt = Date.now()
      let status = (await read(b)).status
      while (status === 200 && Date.now() - loggedOutAt < SESSION_CACHE_MS + 2_000) {
        await new Promise((r) => setTimeout(r, 100))
        status = (await read(b)).status
      }
      expect(status).toBe(401)
      expect(Date.now() - loggedOutAt).toBeLessThan(SESSION_CACHE_MS + 1_000)
    } finally {
      a.child.kill('SIGTERM')
      b.child.kill('SIGTERM')
    }
  })
})
