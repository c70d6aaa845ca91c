// The `finapi` command as a person meets it, run as the real process (the compiled build): every command and group
// answers --help and -h with its own usage and no database, a bad option with one line and that command's usage
// (exit 2), --version; and on a sandbox database, what lists things prints JSON with --json, and a customer's
// credentials are found by its id or by what it signs in with.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_BATCH_LINES } from '../src/reporting/transactions/import.js'
import { finapiCommands, runFinapi, type Finished } from './support/cli.js'
import { createTestDatabase, type TestDatabase } from './support/database.js'

/** Runs `fn` over `items`, `limit` at a time: each is a process, and the machine has few cores. */
async function eachLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await fn(items[i]!)
      }
    }),
  )
  return results
}

/** Each test here starts tens of short processes: ample time on a loaded machine, seconds on a quiet one. */
const PROCESSES_TIMEOUT_MS = 180_000

describe('help, usage errors and the version, with no configuration at all', () => {
  // The program itself, every group (keys) and every command (keys create).
  const commands = [[], ...finapiCommands({ groups: true })]

  it('every command and group prints its own usage for --help and -h (exit 0)', async () => {
    const results = await eachLimited(commands, 4, async (words) => [words, await runFinapi([...words, '--help'], {}), await runFinapi([...words, '-h'], {})] as const)
    for (const [words, long, short] of results) {
      const name = ['finapi', ...words].join(' ')
      expect(long.code, `${name} --help: ${long.stderr}`).toBe(0)
      expect(long.stderr).toBe('')
      expect(long.stdout.split('\n')[0], name).toMatch(new RegExp(`^Usage: ${name} `))
      expect(short.stdout, `${name} -h`).toBe(long.stdout)
    }
    // `finapi help keys create` is `finapi keys create --help`.
    const viaHelp = await runFinapi(['help', 'keys', 'create'], {})
    expect(viaHelp.stdout).toBe(results.find(([words]) => words.join(' ') === 'keys create')![1].stdout)
    // `serve --help` is help, not a server (which would not have exited).
    const serve = results.find(([words]) => words.join(' ') === 'serve')![1]
    expect(serve.stdout).toContain('start the HTTP server')
    // The overview names every command with its usage.
    const overview = results[0]![1].stdout
    for (const words of finapiCommands()) expect(overview).toContain(`  ${words.join(' ')}`)
    // The help shows the import service's batch size (cli.ts keeps a copy so help need not load the service).
    expect(results.find(([words]) => words.join(' ') === 'transactions import')![1].stdout).toContain(`(default ${DEFAULT_BATCH_LINES})`)
  }, PROCESSES_TIMEOUT_MS)

  it('a bad option is one line and the command’s usage on stderr, exit 2, nothing on stdout', async () => {
    const results = await eachLimited(commands, 4, async (words) => [words, await runFinapi([...words, '--no-such-flag'], {})] as const)
    for (const [words, res] of results) {
      const name = ['finapi', ...words].join(' ')
      expect(res.code, `${name}: ${res.stderr}`).toBe(2)
      expect(res.stdout).toBe('')
      const lines = res.stderr.split('\n')
      expect(lines, name).toHaveLength(3) // two lines, each ended
      expect(lines[0]).toBe("finapi: error: unknown option '--no-such-flag'")
      expect(lines[1]).toMatch(new RegExp(`^usage: ${name} .*; see ${name} --help$`))
    }
  }, PROCESSES_TIMEOUT_MS)

  it('an unknown command, a missing argument or a bad value is a usage error too; a group alone names its commands', async () => {
    const expectUsage = (res: Finished, first: string, command: string) => {
      const name = ['finapi', command].filter(Boolean).join(' ')
      expect(res.code).toBe(2)
      expect(res.stderr.split('\n')).toEqual([first, expect.stringMatching(new RegExp(`^usage: ${name} .*; see ${name} --help$`)), ''])
    }
    expectUsage(await runFinapi(['frobnicate'], {}), "finapi: error: unknown command 'frobnicate'", '')
    expectUsage(await runFinapi(['kyes', 'list'], {}), "finapi: error: unknown command 'kyes' (Did you mean keys?)", '')
    expectUsage(await runFinapi(['help', 'keys', 'frob'], {}), "finapi: error: unknown command 'keys frob'", 'help')
    expectUsage(await runFinapi(['keys'], {}), 'finapi: error: keys needs a command: create, list, revoke', 'keys')
    expectUsage(await runFinapi(['keys', 'remove', 'x'], {}), "finapi: error: unknown command 'remove' for keys (Did you mean revoke?); its commands: create, list, revoke", 'keys')
    expectUsage(await runFinapi(['keys', 'revoke'], {}), "finapi: error: missing required argument 'id'", 'keys revoke')
    expectUsage(await runFinapi(['keys', 'revoke', 'a', 'b'], {}), "finapi: error: too many arguments for 'revoke'. Expected 1 argument but got 2.", 'keys revoke')
    expectUsage(
      await runFinapi(['transactions', 'generate', '--org', 'x', '--days', '0', '--per-day', '1', '--seed', 's'], {}),
      "finapi: error: option '--days <n>' argument '0' is invalid. It must be a whole number from 1 to 3660.",
      'transactions generate',
    )
  }, PROCESSES_TIMEOUT_MS)

  it('--version and -V print the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) expect(await runFinapi([flag], {})).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  }, PROCESSES_TIMEOUT_MS)
})

describe('on a sandbox database', () => {
  let database: TestDatabase
  const run = (args: string[]) => runFinapi(args, { MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn' })
  const json = async (args: string[]) => {
    const res = await run([...args, '--json'])
    expect(res.code, res.stderr).toBe(0)
    const value = JSON.parse(res.stdout) as Record<string, unknown>[]
    expect(Array.isArray(value)).toBe(true)
    return value
  }

  beforeAll(async () => {
    database = await createTestDatabase()
    const migrated = await run(['migrate'])
    expect(migrated.code, migrated.stderr).toBe(0)
  }, 120_000)
  afterAll(() => database.drop())

  it('finds a customer by its id or by the username it signs in with; an unknown one names ids that exist', async () => {
    const byId = await run(['credentials', 'list', 'sandbox-customer-1'])
    expect(byId.code, byId.stderr).toBe(0)
    expect(byId.stdout).toMatch(/^id\tkind\tbrand\/lob\trestricted\tstatus\tcreated\n/)
    expect(byId.stdout).toMatch(/^\S+\tusernamePassword\tnab\/nab\t-\tactive\t/m)
    const byUsername = await run(['credentials', 'list', '10055670'])
    expect(byUsername.stdout).toBe(byId.stdout)
    expect(byUsername.stderr).toBe('finapi: 10055670 signs in to customer sandbox-customer-1\n')
    const unknown = await run(['credentials', 'list', '1'])
    expect(unknown.code).toBe(1)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toBe('finapi: no customer 1: give a customer id or a username it signs in with; customer ids look like sandbox-customer-1, sandbox-customer-2, sandbox-merchant-user-testrest\n')
  })

  it('makes a merchant user an operator and takes the role back; an unknown username is a one-line failure', async () => {
    const granted = await run(['users', 'grant-operator', 'testrest'])
    expect(granted, granted.stderr).toMatchObject({ code: 0, stdout: 'testrest (organization testrest) is an operator.\n' })
    expect(await json(['users', 'list'])).toContainEqual(expect.objectContaining({ username: 'testrest', operator: true }))
    expect((await run(['users', 'list'])).stdout).toMatch(/^\S+\ttestrest\ttestrest\t\S+\tactive\toperator\t/m)
    expect(await run(['users', 'revoke-operator', 'testrest'])).toMatchObject({ code: 0, stdout: 'testrest (organization testrest) is no longer an operator.\n' })
    expect(await json(['users', 'list'])).toContainEqual(expect.objectContaining({ username: 'testrest', operator: false }))
    expect(await run(['users', 'grant-operator', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'finapi: no merchant user nobody (see finapi users list)\n' })
  })

  it('prints a JSON array with --json wherever it lists things, and never a secret', async () => {
    const keys = await json(['keys', 'list'])
    expect(keys.map((k) => k['type'])).toContain('application')
    expect(keys.find((k) => k['type'] === 'reporting')).toMatchObject({ organizationId: expect.any(String), kind: 'shared-secret', status: 'active' })
    expect(await json(['orgs', 'list'])).toContainEqual(expect.objectContaining({ id: 'testrest', type: 'merchant', parentId: 'testrest_acct' }))
    expect(await json(['clients', 'list'])).toContainEqual(expect.objectContaining({ id: 'sandbox', scopes: ['accounts', 'reporting'], confidential: false }))
    expect(await json(['users', 'list'])).toContainEqual(expect.objectContaining({ username: 'testrest', organizationId: 'testrest', status: 'active' }))
    const credentials = await json(['credentials', 'list', 'sandbox-customer-1'])
    expect(credentials.map((c) => c['kind'])).toContain('usernamePassword')
    expect(await json(['reports', 'list', '--limit', '5'])).toEqual(expect.any(Array))
    const everything = JSON.stringify([keys, credentials])
    expect(everything).not.toMatch(/"\w*(secret|hash|password)\w*":|aaa111|sandbox-key-finapi/i)
  })
})
