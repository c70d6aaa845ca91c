// The real command-line tool and server processes: key management, two servers sharing one database, and a
// graceful shutdown on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './support/database.js'
import { runFinapi, startFinapiServer } from './support/cli.js'
import { call } from './support/harness.js'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.drop())

const env = (extra: Record<string, string> = {}) => ({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'info', ...extra })
const run = (args: string[], extra: Record<string, string> = {}) => runFinapi(args, env(extra))
const startServer = () => startFinapiServer(env())

describe('finapi command-line tool', () => {
  it('migrate applies the schema and is idempotent', async () => {
    const first = await run(['migrate'])
    expect(first.code).toBe(0)
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

  it('rejects an unknown command with usage', async () => {
    const res = await run(['frobnicate'])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('unknown command: frobnicate')
    expect(res.stderr).toContain('Usage: finapi')
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
})
