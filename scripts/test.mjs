#!/usr/bin/env node
// `npm test`: type-check, lint, then the whole suite on SQLite and again on PostgreSQL. PostgreSQL runs on a
// throwaway cluster started here from /usr/lib/postgresql/*/bin (initdb as the `postgres` user when root,
// 127.0.0.1, a free port, fsync off) and removed afterwards. Without PostgreSQL's binaries the PostgreSQL pass is
// skipped loudly, and under CI=true that fails the run. The browser tests (test/support/browser.ts) need Chromium at
// /usr/bin/chromium (or FINAPI_CHROMIUM_PATH): without it they are skipped loudly, and under CI=true that fails the run.
import { execFileSync, spawn } from 'node:child_process'
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ci = process.env.CI === 'true' || process.env.CI === '1'
const totals = { passed: 0, failed: 0, skipped: 0 }
/** Unhandled errors vitest reported (vitest.config.ts appends them), by pass: printed again after the totals. */
const unhandled = []

// An interrupted run (Ctrl-C, a CI timeout's SIGTERM, a closed terminal) stops the step in progress, then unwinds
// through withPostgres's `finally`, so the throwaway cluster is stopped and removed on every exit path.
let interrupted
let running
class Interrupted extends Error {}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) return
    interrupted = signal
    console.error(`\n✗ ${signal}: stopping the tests and cleaning up`)
    // The step's whole process group: npx's child (vitest) and its workers, not only npx.
    if (running) process.kill(-running.pid, 'SIGTERM')
  })
}

function step(name, cmd, args, env = {}) {
  if (interrupted) throw new Interrupted()
  console.log(`\n▶ ${name}`)
  return new Promise((resolve, reject) => {
    // A process group of its own, so an interruption stops everything the step started.
    running = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env }, detached: true })
    running.on('error', reject)
    running.on('close', (code) => {
      running = undefined
      if (interrupted) reject(new Interrupted())
      else resolve(code === 0)
    })
  })
}

async function vitest(label, env) {
  const dir = mkdtempSync(join(tmpdir(), 'finapi-report-'))
  const report = join(dir, 'report.json')
  const errors = join(dir, 'unhandled.ndjson')
  try {
    const ok = await step(`tests on ${label}`, 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], { ...env, FINAPI_UNHANDLED_LOG: errors })
    if (existsSync(errors)) for (const line of readFileSync(errors, 'utf8').split('\n').filter(Boolean)) unhandled.push({ label, ...JSON.parse(line) })
    if (existsSync(report)) {
      const r = JSON.parse(readFileSync(report, 'utf8'))
      totals.passed += r.numPassedTests
      totals.failed += r.numFailedTests + (r.numTotalTestSuites > 0 && r.numTotalTests === 0 ? 1 : 0)
      totals.skipped += r.numPendingTests + r.numTodoTests
      if (r.numTotalTests === 0) console.error(`✗ no tests ran on ${label}`)
      return ok && r.numTotalTests > 0
    }
    totals.failed += 1
    return false
  } finally {
    // The report and the unhandled errors are read above; a run left one folder behind per pass before.
    rmSync(dir, { recursive: true, force: true })
  }
}

function findPgBin() {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions.length ? join(root, versions[0], 'bin') : undefined
}

// Same path and override as test/support/browser.ts.
const chromiumPath = process.env.FINAPI_CHROMIUM_PATH || '/usr/bin/chromium'

function chromiumInstalled() {
  try {
    if (!statSync(chromiumPath).isFile()) return false
    accessSync(chromiumPath, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

async function withPostgres(bin, fn) {
  const isRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'finapi-pg-'))
  const asOwner = (cmd, args) => {
    const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args]
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'inherit'] })
  }
  if (isRoot) {
    chmodSync(dir, 0o700)
    execFileSync('chown', ['postgres:postgres', dir])
  }
  const data = join(dir, 'data')
  const port = await freePort()
  try {
    asOwner('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'])
    const opts = `-F -p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c synchronous_commit=off -c full_page_writes=off`
    asOwner('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start'])
    console.log(`\nPostgreSQL ${bin.split('/').at(-2)} test cluster on 127.0.0.1:${port}`)
    return await fn(`postgres://postgres@127.0.0.1:${port}/postgres`)
  } finally {
    try {
      asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
    } catch {
      // The cluster may not have started; the folder is removed either way.
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

const chromium = chromiumInstalled()
const noChromium = `✗ Chromium not found (${chromiumPath}): the browser tests ${ci ? 'fail (CI=true requires Chromium)' : 'are skipped'}; install with apt-get install -y --no-install-recommends chromium`

let ok = true
try {
  ok = (await step('type-check', 'npx', ['tsc', '--noEmit'])) && ok
  ok = (await step('lint', 'npx', ['eslint', '.', '--max-warnings=0'])) && ok

  if (!chromium) console.error(`\n${noChromium}`)

  ok = (await vitest('SQLite', {})) && ok

  const pgBin = findPgBin()
  if (pgBin) {
    ok = (await withPostgres(pgBin, (adminUrl) => vitest('PostgreSQL', { TEST_PG_ADMIN_URL: adminUrl }))) && ok
  } else {
    const banner = '!'.repeat(78)
    console.error(`\n${banner}\n!! PostgreSQL SKIPPED: no /usr/lib/postgresql/*/bin/initdb on this machine.`)
    console.error(`!! Install it (apt-get install -y postgresql) to run the suite on PostgreSQL too.\n${banner}\n`)
    if (ci) {
      console.error('CI=true: PostgreSQL is required; failing.')
      ok = false
    }
  }
} catch (err) {
  if (!(err instanceof Interrupted)) throw err
  console.error(`\ntests: interrupted by ${interrupted}; the PostgreSQL test cluster, if one was started, is stopped and removed`)
  process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[interrupted] ?? 0))
}

if (!chromium) {
  console.error(`\n${noChromium}`)
  if (ci) {
    console.error('CI=true: Chromium is required; failing.')
    ok = false
  }
}

for (const e of unhandled) console.error(`\n✗ unhandled error on ${e.label} (${e.type}): ${e.name}: ${e.message}${e.code ? ` [${e.code}]` : ''}\n${e.stack ?? ''}`)
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped, ${unhandled.length} unhandled errors`)
process.exit(ok ? 0 : 1)
