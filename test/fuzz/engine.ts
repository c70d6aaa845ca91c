// The fuzz engine, shared by test/fuzz.test.ts (a few thousand requests, a fixed seed) and `npm run fuzz` (a long
// campaign): signs in for real tokens, generates each case from (seed, index) alone with fast-check, so one case
// replays on its own, sends them over raw sockets a few at a time, judges every answer against its family's
// contract, and at the end checks the server is alive and that no secret the campaign sent or received is in the log.
import type { KeyObject } from 'node:crypto'
import fc from 'fast-check'
import { bankingCases, SANDBOX_SECRETS, type Context } from './banking.js'
import { merchantCases, sweepCases, type MerchantContext } from './merchant.js'
import { prepareMerchant } from './merchant-setup.js'
import { oauthCases } from './oauth.js'
import { judge, type Family } from './oracle.js'
import { LIMITS, MERCHANT_RAW_PATHS, rawCases, slowCases } from './raw.js'
import { variants } from './requests.js'
import { prepare } from './setup.js'
import { authenticate, type MerchantCredentials } from './signing.js'
import { caseTarget, send, type Answer, type FuzzCase } from './wire.js'

export interface Target {
  baseUrl: string
  key: string
  /** A confidential client (scope reporting, redirect URI PARTNER_REDIRECT). */
  partner: { clientId: string; secret: string }
  /** The whole log so far, numbers blanked (so a secret is never "found" in a timestamp). */
  logText(): Promise<string>
  /** Whether the server process is still running. */
  running(): boolean
  /** The server's clock, for signature dates and JWT times (a test's fake clock); the real time when not given. */
  now?(): Date
  /** A certificate registered for testrest's JWTs (RS256); without one, JWT cases use HS256 only. */
  jwtCertificate?: { serialNumber: string; privateKey: KeyObject; certificatePem: string }
}

/** The API families a campaign covers: banking and OAuth (issue 11), the merchant family (issue 19), or both. */
export type Families = 'banking' | 'merchant' | 'both'

export interface Failure {
  index: number
  problem: string
  status: number | undefined
  body: string
  fuzzCase: FuzzCase
}

export interface Summary {
  seed: number
  requests: number
  elapsedMs: number
  byFamily: Record<Family, number>
  byAnswer: Record<string, number>
  outsideContract: number
  unexpected5xx: number
  slow: number
  slowestMs: number
  alive: boolean
  secretsInLog: string[]
  /** Log lines searched; the search counts only if the log holds redacted URLs (request lines), so it was captured. */
  logLines: number
  logCaptured: boolean
  failures: Failure[]
}

export interface CampaignOptions {
  seed: number
  /** Which families (default banking: its cases stay those of earlier campaigns of the same seed). */
  families?: Families
  /**
   * With the merchant family, the sweep (merchant.ts sweepCases: each field of each route with NUL and
   * Object.prototype names) comes first, as cases 0 to its length - 1, before the `requests` generated ones.
   */
  sweep?: boolean
  requests: number
  concurrency?: number
  /** Run only this case index (a replay, counted from the sweep's first case); the other indices are not generated. */
  only?: number
  /** An answer later than this (after the client's last byte, beyond a documented server wait) is slow. */
  slowMs?: number
  log?: (line: string) => void
}

const platformPaths = fc.constantFrom('/health/live', '/health/ready', '/metrics', '/openapi.json', '/docs', '/docs/static/index.html', '/nothing', '/', '/v3/accounts', '/oauth2/v3/nothing', '/oauth2/v3/assets/icon.svg')

function bankingMix(ctx: Context): fc.Arbitrary<FuzzCase> {
  const other = platformPaths.chain((path) => variants({ note: `GET ${path}`, method: 'GET', path, params: [], headers: [['Host', '127.0.0.1'], ['User-Agent', 'finapi-fuzz/1.0']] }))
  return fc.oneof({ weight: 10, arbitrary: bankingCases(ctx) }, { weight: 6, arbitrary: oauthCases(ctx) }, { weight: 3, arbitrary: rawCases(ctx) }, { weight: 1, arbitrary: other })
}

function merchantMix(ctx: MerchantContext, key: string): fc.Arbitrary<FuzzCase> {
  return fc.oneof({ weight: 12, arbitrary: merchantCases(ctx, LIMITS.OUTBOUND_TIMEOUT_MS) }, { weight: 1, arbitrary: rawCases({ key }, MERCHANT_RAW_PATHS) })
}

/** What the generators build requests from: the banking setup's context, the merchant setup's, or both. */
export interface Contexts {
  banking?: Context
  merchant?: MerchantContext
  /** The application key and confidential client, for raw and slow cases. */
  key: string
  partner: { clientId: string; secret: string }
}

/** The seed of case `index` of a campaign: every case is generated on its own. */
export function caseSeed(seed: number, index: number): number {
  return (Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f) + Math.imul(index + 1, 0x165667b1)) | 0
}

/** How many slow clients a campaign of `requests` runs (a few: each takes a second or two of real time). */
export const slowCount = (requests: number) => Math.max(1, Math.min(12, Math.floor(requests / 1_500)))

/** Case `index` of the campaign (seed, requests): a slow client at every stride-th index, else the mix. */
export function generator(ctxs: Contexts, seed: number, requests: number): (index: number) => FuzzCase {
  const stride = Math.max(1, Math.floor(requests / slowCount(requests)))
  const banking = ctxs.banking && { slow: slowCases(ctxs.banking), mix: bankingMix(ctxs.banking) }
  const merchant = ctxs.merchant && { slow: slowCases(ctxs, ['/webhooks/v1/events', '/reporting/v3/reports']), mix: merchantMix(ctxs.merchant, ctxs.key) }
  const arbitraries = banking && merchant
    ? { slow: fc.oneof(banking.slow, merchant.slow), mix: fc.oneof({ weight: 3, arbitrary: banking.mix }, { weight: 2, arbitrary: merchant.mix }) }
    : (banking ?? merchant)
  if (!arbitraries) throw new Error('fuzz: a campaign needs the banking or the merchant context')
  return (index) => fc.sample(index % stride === stride - 1 ? arbitraries.slow : arbitraries.mix, { seed: caseSeed(seed, index), numRuns: 1 })[0]!
}

/** Secrets handed out in answers: session tokens, soft credentials, OAuth tokens and codes. */
function harvest(answer: Answer, secrets: Set<string>): void {
  if (answer.status === 303) {
    const code = /[?&]code=([^&]+)/.exec(String(answer.headers['location']))?.[1]
    if (code) secrets.add(decodeURIComponent(code))
  }
  if (answer.status !== 200 && answer.status !== 201) return
  const text = answer.body.toString('utf8')
  // The merchant family's webhook signing keys (keys-sym) are answered once, as keyInformation.key.
  for (const m of text.matchAll(/"(?:value|token|access_token|refresh_token|key)":"([^"]{16,})"/g)) secrets.add(m[1]!)
}

/** JWTs the campaign sent: a sample of their signatures is looked for in the log too (all would cost too much). */
function sentTokens(c: FuzzCase, secrets: Set<string>, sample: { left: number }): void {
  if (c.type !== 'http' || sample.left <= 0) return
  const token = /^Bearer ([\w-]+\.[\w-]+\.([\w-]{16,}))$/.exec(c.headers.find(([n]) => n === 'authorization')?.[1] ?? '')
  if (token) {
    secrets.add(token[2]!)
    sample.left--
  }
}

const graceOf = (c: FuzzCase) => c.graceMs ?? 0

function waitFor(c: FuzzCase): number {
  return graceOf(c) + (c.type === 'slow' ? 6_000 : 5_000)
}

export async function runCampaign(target: Target, options: CampaignOptions): Promise<Summary> {
  const { seed, requests, concurrency = 8, slowMs = 2_000, log = () => {}, families = 'banking' } = options
  const started = performance.now()
  const secrets = new Set<string>([target.key, target.partner.secret])
  const ctxs: Contexts = { key: target.key, partner: target.partner }
  if (families !== 'merchant') {
    const banking = await prepare(target)
    ctxs.banking = banking.ctx
    for (const s of [...banking.secrets, ...SANDBOX_SECRETS]) secrets.add(s)
  }
  let creds: MerchantCredentials | undefined
  if (families !== 'banking') {
    const merchant = await prepareMerchant(target, ctxs.banking?.access)
    ctxs.merchant = merchant.ctx
    creds = merchant.creds
    for (const s of merchant.secrets) secrets.add(s)
  }
  // What a case is sent as: a merchant case signed now, over the request as mangled.
  const jwtSample = { left: 200 }
  const wire = (c: FuzzCase): FuzzCase => {
    if (c.type !== 'http' || !c.auth || !creds) return c
    const sent = authenticate(c, creds)
    sentTokens(sent, secrets, jwtSample)
    return sent
  }
  const summary: Summary = {
    seed, requests: 0, elapsedMs: 0, byFamily: { banking: 0, token: 0, authorize: 0, reporting: 0, other: 0 }, byAnswer: {},
    outsideContract: 0, unexpected5xx: 0, slow: 0, slowestMs: 0, alive: false, secretsInLog: [], logLines: 0, logCaptured: false, failures: [],
  }
  const sweep = ctxs.merchant && options.sweep ? sweepCases(ctxs.merchant, LIMITS.OUTBOUND_TIMEOUT_MS) : []
  const indices = options.only === undefined ? Array.from({ length: sweep.length + requests }, (_, i) => i) : [options.only]
  const generated = generator(ctxs, seed, requests)
  const generate = (index: number) => (index < sweep.length ? sweep[index]! : generated(index - sweep.length))
  let next = 0
  // A slow answer under load may be the machine's (it is shared, and 8 cases run at once): each is sent again alone
  // after the campaign, and only an answer slow both times counts.
  const slowCandidates: { index: number; latency: number }[] = []
  const worker = async () => {
    while (next < indices.length && target.running()) {
      const index = indices[next++]!
      const fuzzCase = generate(index)
      const answer = await send(target.baseUrl, wire(fuzzCase), waitFor(fuzzCase))
      harvest(answer, secrets)
      const { method, path } = caseTarget(fuzzCase)
      const grace = graceOf(fuzzCase)
      const latency = (fuzzCase.type === 'slow' ? answer.elapsedMs : answer.afterLastByteMs) - grace
      let verdict = judge({ ...answer, afterLastByteMs: latency }, method, path, slowMs)
      // A raw request answers in the family of its routed path, or of its request line's when the parser refused it.
      if (verdict.problem && fuzzCase.type !== 'http' && fuzzCase.altPath !== undefined) {
        const alternative = judge({ ...answer, afterLastByteMs: latency }, method, fuzzCase.altPath, slowMs)
        if (!alternative.problem) verdict = alternative
      }
      summary.requests++
      summary.byFamily[verdict.family]++
      summary.byAnswer[verdict.label] = (summary.byAnswer[verdict.label] ?? 0) + 1
      summary.slowestMs = Math.max(summary.slowestMs, latency)
      if (latency > slowMs) slowCandidates.push({ index, latency })
      if (verdict.unexpected5xx) summary.unexpected5xx++
      if (verdict.problem) {
        summary.outsideContract++
        const failure = { index, problem: verdict.problem, status: answer.status, body: answer.body.toString('utf8').slice(0, 300), fuzzCase }
        if (summary.failures.length < 20) summary.failures.push(failure)
        log(describeFailure(seed, requests, failure, families))
      }
      if (summary.requests % 2_000 === 0) log(`… ${summary.requests} requests, ${summary.outsideContract} outside the contract`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, indices.length) }, worker))
  for (const candidate of slowCandidates) {
    const fuzzCase = generate(candidate.index)
    const answer = await send(target.baseUrl, wire(fuzzCase), waitFor(fuzzCase))
    const grace = graceOf(fuzzCase)
    const again = (fuzzCase.type === 'slow' ? answer.elapsedMs : answer.afterLastByteMs) - grace
    log(`case #${candidate.index} took ${Math.round(candidate.latency)} ms under load; alone it took ${Math.round(again)} ms`)
    if (again <= slowMs) continue
    summary.slow++
    if (summary.failures.length < 20) summary.failures.push({ index: candidate.index, problem: `slow: ${Math.round(candidate.latency)} ms, then ${Math.round(again)} ms alone`, status: answer.status, body: '', fuzzCase })
  }
  summary.alive = target.running() && (await alive(target.baseUrl))
  // Give the logger a moment to flush the last lines.
  await new Promise((r) => setTimeout(r, 200))
  const logged = await target.logText()
  summary.logLines = logged.split('\n').length
  summary.logCaptured = logged.includes('[redacted]')
  summary.secretsInLog = [...secrets].filter((s) => s.length >= 6 && logged.includes(s)).map((s) => `${s.slice(0, 6)}…`)
  summary.elapsedMs = Math.round(performance.now() - started)
  return summary
}

async function alive(baseUrl: string): Promise<boolean> {
  const answer = await send(baseUrl, { type: 'http', note: 'alive', method: 'GET', target: '/health/live', headers: [['Host', 'x']] }, 2_000)
  return answer.status === 200 && answer.body.toString('utf8').includes('"ok"')
}

export function describeFailure(seed: number, requests: number, f: Failure, families: Families = 'banking'): string {
  const file = families === 'merchant' ? 'test/fuzz-merchant.test.ts' : 'test/fuzz.test.ts'
  const vitest = families === 'both' ? '' : `   (or FUZZ_SEED=${seed} FUZZ_REQUESTS=${requests} FUZZ_CASE=${f.index} npx vitest run ${file})`
  return [
    `✗ case #${f.index} (seed ${seed}, ${requests} requests): ${f.problem}`,
    `  answer: ${f.status ?? 'none'} ${f.body.replace(/\s+/g, ' ').slice(0, 200)}`,
    `  case: ${JSON.stringify(f.fuzzCase).slice(0, 600)}`,
    `  replay: npm run fuzz -- --families ${families} --seed ${seed} --requests ${requests} --case ${f.index}${vitest}`,
  ].join('\n')
}

export function formatSummary(s: Summary): string {
  const answers = Object.entries(s.byAnswer).sort((a, b) => b[1] - a[1]).map(([k, n]) => `    ${String(n).padStart(6)}  ${k}`)
  return [
    `fuzz campaign: seed ${s.seed}, ${s.requests} requests in ${(s.elapsedMs / 1000).toFixed(1)} s`,
    `  by family: ${Object.entries(s.byFamily).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    '  answers:',
    ...answers,
    `  outside the contract: ${s.outsideContract}`,
    `  unexpected 5xx: ${s.unexpected5xx}`,
    `  slow (> 2 s): ${s.slow} (slowest ${s.slowestMs} ms beyond any documented wait)`,
    `  server alive: ${s.alive ? 'yes' : 'NO'}`,
    `  log searched: ${s.logLines} lines ${s.logCaptured ? '' : ' (NOT captured: no redacted URL in it)'}`,
    `  secrets in the log: ${s.secretsInLog.length}${s.secretsInLog.length ? ` (${s.secretsInLog.join(', ')})` : ''}`,
  ].join('\n')
}

/** Whether a campaign passed the gate. */
export const passed = (s: Summary) => s.outsideContract === 0 && s.unexpected5xx === 0 && s.slow === 0 && s.alive && s.logCaptured && s.secretsInLog.length === 0
