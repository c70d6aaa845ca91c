// Every runnable snippet of the README and docs/ is a program in examples/ (test/docs.test.ts checks the pages quote
// them exactly). This runs each one as a reader would, from the project folder, against a real `finapi serve` (the
// compiled build, sandbox mode) on a fresh database, and fails when an example exists that nothing here runs.
import { readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand, startFinapiServer, type Finished, type RunningServer } from './support/cli.js'
import { createTestDatabase, type TestDatabase } from './support/database.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const EXAMPLES = fileURLToPath(new URL('../examples/', import.meta.url))

let database: TestDatabase
let server: RunningServer

beforeAll(async () => {
  database = await createTestDatabase()
  // A short poll, so reports and deliveries the examples wait for come within a fraction of a second.
  server = await startFinapiServer({ MODE: 'sandbox', DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBS_POLL_MS: '100' })
})

afterAll(async () => {
  server?.child.kill('SIGTERM')
  await server?.exited
  await database?.drop()
})

/** Runs one example from the project folder, with the server's URL and database, as the docs tell a reader to. */
async function run(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<Finished> {
  const command = file.endsWith('.sh') ? 'bash' : process.execPath
  const environment = { BASE: server.baseUrl, DATABASE_URL: database.url, HOME: process.env['HOME'] ?? '/tmp', ...env }
  const finished = await runCommand(command, [`examples/${file}`, ...args], environment, { cwd: ROOT })
  expect(finished.code, `${file} failed:\n${finished.stdout}\n${finished.stderr}`).toBe(0)
  return finished
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
    probe.on('error', reject)
  })
}

/** What each example must print; every program under examples/ needs an entry. */
const checks: Record<string, () => Promise<void>> = {
  'signed.mjs': async () => {
    const { stdout, stderr } = await run('signed.mjs', ['GET', '/reporting/v3/report-definitions?subscriptionType=CUSTOM'])
    expect(stderr).toBe('200\n')
    expect(JSON.parse(stdout).reportDefinitions).toHaveLength(18)
  },
  'banking/tour.sh': async () => {
    const { stdout } = await run('banking/tour.sh')
    expect(stdout).toContain('DDA 083047-880169858 4180.25')
    // Details, balances, quick balances, a soft credential, the logout.
    expect(stdout.match(/^\{"status":\{"code":"API-200"/gm)).toHaveLength(5)
    expect(stdout).toMatch(/"tokenResponse":\{"token":"[\w-]+"\}/)
  },
  'banking/device-passcode.mjs': async () => {
    expect((await run('banking/device-passcode.mjs')).stdout).toMatch(/^200 API-200 \d{4}-/)
  },
  'banking/import.sh': async () => {
    const { stdout } = await run('banking/import.sh')
    expect(stdout).toContain('Imported 1 customers, 3 credentials, 3 accounts, 2 exchange rates.')
    expect(stdout).toContain('customers')
  },
  'oauth/authorization-code.sh': async () => {
    const { stdout } = await run('oauth/authorization-code.sh')
    expect(stdout).toMatch(/Redirected to: http:\/\/127\.0\.0\.1:8080\/callback\?code=[\w-]+&state=xyz&iss=/)
    expect(stdout).toMatch(/"token_type":"bearer","refresh_token":"frt_[\w-]+","expires_in":900,"scope":"accounts"/)
    expect(stdout).toContain('14 accounts')
    expect(stdout).toContain('refreshed: bearer, expires in 900 s')
  },
  'oauth/client-credentials.sh': async () => {
    const { stdout } = await run('oauth/client-credentials.sh')
    expect(stdout).toContain('of organization acme.')
    expect(stdout).toContain('{"subscriptions":[]}')
    expect(stdout).toMatch(/\{"active":true,"scope":"reporting","client_id":"fc_[\w-]+","token_type":"Bearer"/)
    expect(stdout).toMatch(/^200\n\{"active":false\}$/m)
  },
  'oauth/pushed-request.sh': async () => {
    const { stdout } = await run('oauth/pushed-request.sh')
    expect(stdout).toMatch(/^\{"request_uri":"urn:ietf:params:oauth:request_uri:[\w-]+","expires_in":90\}$/m)
    expect(stdout).toContain('scope accounts, bearer')
  },
  'oauth/partner.sh': async () => {
    expect((await run('oauth/partner.sh')).stdout).toContain('18 report definitions for testrest')
  },
  'reporting/tour.sh': async () => {
    const { stdout } = await run('reporting/tour.sh')
    expect(stdout).toContain('210 TransactionRequestClass')
    expect(stdout).toContain('{"subscriptions":[]}')
    // Two purchases or refunds of the sandbox's generated month: request id and merchant reference.
    expect(stdout.trim().split('\n').slice(-2).every((line) => /^\d{22} \S+$/.test(line))).toBe(true)
  },
  'reporting/sdk.mjs': async () => {
    const { stdout } = await run('reporting/sdk.mjs')
    expect(stdout.trim().split('\n')).toEqual([
      'http_signature: 18 report definitions',
      'http_signature, meta key: 18 report definitions',
      'jwt, shared secret (HS256): 18 report definitions',
      'oauth: 18 report definitions',
    ])
  },
  'reporting/one-time-report.sh': async () => {
    const { stdout, stderr } = await run('reporting/one-time-report.sh')
    expect(stderr).toMatch(/^201 Location: \/reporting\/v3\/reports\/[0-9a-f-]{36}$/m)
    expect(stdout).toMatch(/COMPLETED\nRequest\.RequestID,Request\.TransactionDate,BillTo\.Email,Application\.Name\r\n\d{22},/)
  },
  'reporting/sandbox-clock.sh': async () => {
    const { stdout } = await run('reporting/sandbox-clock.sh')
    // Three daily windows close in three days (daylight saving aside); the first holds the sandbox's transactions.
    // The answers list the reports the call itself queued: a server's sweep at that moment may queue some first.
    expect(stdout).toMatch(/^[0-3] reports queued$/m)
    // Two windows hold transactions before 11:00 UTC (the window's end: 06:00 in New York), since the sandbox's run
    // to the end of today, UTC; one after it.
    expect(stdout).toMatch(/^COMPLETED( COMPLETED)?( NO_DATA)+ PENDING$/m)
    expect(stdout).toMatch(/^Reporting time of testrest is now .*; [0-2] reports came due\.$/m)
  },
  'reporting/transactions.sh': async () => {
    const { stdout } = await run('reporting/transactions.sh')
    expect(stdout).toContain('Imported 1 transactions from 1 lines in 1 batches.')
    expect(stdout).toContain('Imported 1 transactions from 2 lines in 1 batches.')
    expect(stdout).toMatch(/^Stored 600 transactions for testrest \(/m)
  },
  'webhooks/tour.sh': async () => {
    const { stdout } = await run('webhooks/tour.sh', [], { RECEIVER_PORT: String(await freePort()) })
    expect(stdout).toMatch(/^verified webhook\.test [0-9a-f-]{36} \(NEW, retry 0\)$/m)
    expect(stdout).toContain('test notification: DELIVERED')
    expect(stdout).toMatch(/^verified invoicing\.customer\.invoice\.paid [0-9a-f-]{36} \(NEW, retry 0\)$/m)
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!).notifications.map((n: { status: string }) => n.status)).toEqual(['DELIVERED', 'DELIVERED'])
  },
  // Started by webhooks/tour.sh, which checks what it prints.
  'webhooks/receiver.mjs': async () => undefined,
}

describe('examples/', () => {
  it('every program in examples/ is run here', () => {
    const programs = readdirSync(EXAMPLES, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(sh|mjs|js|ts)$/.test(f))
    expect(programs.sort()).toEqual(Object.keys(checks).sort())
  })

  for (const [file, check] of Object.entries(checks)) it(`${file} runs as the docs show`, check, 120_000)
})
