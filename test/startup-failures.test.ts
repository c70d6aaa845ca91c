// A server that cannot start says why in one line naming the setting to change, exits non-zero, and shows no stack
// and no secret: a port in use, PostgreSQL unreachable or refusing, a file or an unwritable directory where the
// SQLite database should go, a malformed setting holding a password.
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFinapi, type Finished } from './support/cli.js'

const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'finapi-startup-'))
let busy: Server
let busyPort = 0
beforeAll(async () => {
  busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  busyPort = (busy.address() as { port: number }).port
})
afterAll(async () => {
  await new Promise<void>((resolve) => busy.close(() => resolve()))
  rmSync(dir, { recursive: true, force: true })
})

function expectOneLine(run: Finished, setting: string, ...secrets: string[]): string {
  expect(run.code).toBe(1)
  const lines = run.stderr.trimEnd().split('\n')
  expect(lines, run.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^finapi: /)
  expect(lines[0]).toContain(setting)
  expect(run.stderr).not.toMatch(/\n\s+at /)
  for (const secret of secrets) expect(run.stderr).not.toContain(secret)
  return lines[0]!
}

/** As a user who is not root where the tests run as root (root writes anywhere). */
function runAsUser(env: Record<string, string>): Promise<Finished> {
  const root = process.getuid?.() === 0
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { PATH: process.env['PATH'], ...env }, ...(root ? { uid: 65534, gid: 65534 } : {}) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('a server that cannot start', () => {
  it('a port in use: names PORT', async () => {
    const line = expectOneLine(await runFinapi(['serve'], { DATABASE_URL: `sqlite:${join(dir, 'port.db')}`, PORT: String(busyPort) }), 'PORT')
    expect(line).toContain(`port ${busyPort}`)
    expect(line).toContain('already in use')
  })

  it('PostgreSQL unreachable: names DATABASE_URL, with the password masked', async () => {
    const line = expectOneLine(await runFinapi(['serve'], { DATABASE_URL: 'postgres://admin:S3cretPass@127.0.0.1:1/finapi', PORT: '0' }), 'DATABASE_URL', 'S3cretPass')
    expect(line).toContain('postgres://admin:***@127.0.0.1:1/finapi')
    expect(line).toContain('ECONNREFUSED')
  })

  it('a file where the data directory should be: names DATABASE_URL', async () => {
    writeFileSync(join(dir, 'data'), 'not a directory')
    const line = expectOneLine(await runFinapi(['serve'], { DATABASE_URL: `sqlite:${join(dir, 'data', 'finapi.db')}`, PORT: '0' }), 'DATABASE_URL')
    expect(line).toContain('a file stands where a directory')
  })

  it('a data directory the server may not write: names DATABASE_URL', async () => {
    const locked = join(dir, 'locked')
    mkdirSync(locked)
    chmodSync(dir, 0o755)
    chmodSync(locked, 0o555)
    expectOneLine(await runAsUser({ DATABASE_URL: `sqlite:${join(locked, 'sub', 'finapi.db')}`, PORT: '0' }), 'DATABASE_URL')
    expectOneLine(await runAsUser({ DATABASE_URL: `sqlite:${join(locked, 'finapi.db')}`, PORT: '0' }), 'DATABASE_URL')
  })

  it('a malformed setting is named without echoing a password or a secret', async () => {
    expectOneLine(await runFinapi(['serve'], { DATABASE_URL: 'postgress://admin:S3cretPass@db/finapi' }), 'DATABASE_URL', 'S3cretPass')
    expectOneLine(await runFinapi(['serve'], { MODE: 'sandbox', SECRETS_KEY: 'short-but-secret' }), 'SECRETS_KEY', 'short-but-secret')
  })
})
