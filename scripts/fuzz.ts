// `npm run fuzz -- [--families both|banking|merchant] [--requests N] [--seed S] [--case I] [--concurrency C]`: a fuzz
// campaign (test/fuzz/engine.ts) against a real `finapi serve` process on a fresh SQLite file (or DATABASE_URL), at
// LOG_LEVEL=trace, with short header/body/request limits and high throttle limits, over both API families by default:
// banking and OAuth, and the merchant family (reporting, webhooks, events, sandbox; signed with the sandbox keys, a
// JWT certificate registered here, OAuth tokens; the field-by-field sweep first). Prints every failing case with its
// replay command and a summary; exits 1 unless every answer was in contract, none an unexpected 5xx or slow, the
// server alive and its log free of every secret the campaign sent or received. Defaults: 20,000 requests (after the
// merchant sweep), a random seed (printed).
import { spawn, spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { describeFailure, formatSummary, passed, runCampaign, type Families, type Target } from '../test/fuzz/engine.js'
import { PARTNER_REDIRECT } from '../test/fuzz/oracle.js'
import { LIMITS, THROTTLES_RAISED } from '../test/fuzz/raw.js'
import { makeCertificate } from '../test/support/reporting-jwt.js'

const { values } = parseArgs({
  options: {
    families: { type: 'string', default: 'both' },
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string' },
    case: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    keep: { type: 'boolean', default: false },
  },
})
const requests = Number(values.requests)
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed)
const only = values.case === undefined ? undefined : Number(values.case)
const families = values.families as Families
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed) || (only !== undefined && !(only >= 0)) || !['both', 'banking', 'merchant'].includes(families)) {
  console.error('usage: npm run fuzz -- [--families both|banking|merchant] [--requests N] [--seed S] [--case I] [--concurrency C] [--keep]')
  process.exit(2)
}

const dir = mkdtempSync(join(tmpdir(), 'finapi-fuzz-'))
const root = new URL('..', import.meta.url).pathname
const env = {
  ...process.env,
  MODE: 'sandbox',
  HOST: '127.0.0.1',
  PORT: '0',
  DATABASE_URL: process.env['DATABASE_URL'] ?? `sqlite:${join(dir, 'fuzz.db')}`,
  LOG_LEVEL: 'trace',
  ...Object.fromEntries(Object.entries({ ...LIMITS, ...THROTTLES_RAISED }).map(([k, v]) => [k, String(v)])),
}
const cli = (args: string[]) => [process.execPath, ['--import', 'tsx', join(root, 'src/cli.ts'), ...args]] as const

// A confidential client for client_credentials and the partner redirect URI.
const [cmd, args] = cli(['clients', 'create', '--name', 'Fuzz partner', '--scope', 'reporting', '--redirect-uri', PARTNER_REDIRECT])
const created = spawnSync(cmd, args, { env, encoding: 'utf8' })
const clientId = /client_id:\s*(\S+)/.exec(created.stdout)?.[1]
const secret = /(fcs_\S+)/.exec(created.stdout)?.[1]
if (created.status !== 0 || !clientId || !secret) {
  console.error(`could not create the fuzz client:\n${created.stdout}${created.stderr}`)
  process.exit(1)
}
// A certificate for testrest's RS256 JWTs (the merchant family), registered as an operator does.
const certificate = makeCertificate({ organization: 'testrest' })
writeFileSync(join(dir, 'jwt.pem'), certificate.pem)
const [keysCmd, keysArgs] = cli(['keys', 'create', '--org', 'testrest', '--jwt-cert', join(dir, 'jwt.pem')])
const registered = spawnSync(keysCmd, keysArgs, { env, encoding: 'utf8' })
certificate.remove()
if (registered.status !== 0) {
  console.error(`could not register the JWT certificate:\n${registered.stdout}${registered.stderr}`)
  process.exit(1)
}

const logFile = join(dir, 'server.log')
const logSink = createWriteStream(logFile)
const logLines: string[] = []
const [serveCmd, serveArgs] = cli(['serve'])
const server = spawn(serveCmd, serveArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] })
let exit: string | undefined
server.on('exit', (code, signal) => (exit = `exit ${code ?? signal}`))
const baseUrl = await new Promise<string>((resolve, reject) => {
  let pending = ''
  server.stdout.on('data', (chunk: Buffer) => {
    logSink.write(chunk)
    pending += chunk.toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      if (line.startsWith('{')) logLines.push(line)
      const listening = /listening on (http:\/\/\S+)/.exec(line)
      if (listening) resolve(listening[1]!)
    }
  })
  server.stderr.on('data', (chunk: Buffer) => {
    logSink.write(chunk)
    logLines.push(chunk.toString('utf8'))
  })
  server.on('exit', () => reject(new Error(`the server stopped before listening (${exit}); log: ${logFile}`)))
})

const target: Target = {
  baseUrl,
  key: 'sandbox-key-finapi',
  partner: { clientId, secret },
  async logText() {
    return logLines
      .map((line) => {
        try {
          return JSON.stringify(JSON.parse(line), (_k, v: unknown) => (typeof v === 'number' ? 0 : v))
        } catch {
          return line
        }
      })
      .join('\n')
  },
  running: () => exit === undefined,
  jwtCertificate: { serialNumber: certificate.serialNumber, privateKey: certificate.privateKey, certificatePem: certificate.pem },
}

console.log(`fuzz: ${families}, ${only === undefined ? `${requests} requests` : `case ${only} of ${requests}`}, seed ${seed}, server ${baseUrl} (pid ${server.pid}), log ${logFile}`)
let ok = false
try {
  const summary = await runCampaign(target, { seed, requests, only, families, sweep: true, concurrency: Number(values.concurrency), log: (line) => console.log(line) })
  console.log(`\n${formatSummary(summary)}${exit ? `\n  server: ${exit}` : ''}`)
  if (summary.failures.length) console.log(`\nfirst failures:\n${summary.failures.slice(0, 5).map((f) => describeFailure(seed, requests, f, families)).join('\n')}`)
  console.log(`\nreplay this campaign: npm run fuzz -- --families ${families} --requests ${requests} --seed ${seed}`)
  ok = passed(summary)
} finally {
  server.kill('SIGTERM')
  await new Promise((r) => (exit ? r(undefined) : server.once('exit', r)))
  logSink.end()
  if (ok && !values.keep) rmSync(dir, { recursive: true, force: true })
  else console.log(`server log and database kept in ${dir}`)
}
process.exit(ok ? 0 : 1)
