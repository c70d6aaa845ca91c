// The fuzz gate (issue 11): generated requests to every banking and OAuth route and the platform's paths (bodies,
// headers, queries and paths mangled field by field, raw malformed HTTP, a few slow clients) against a real server at
// LOG_LEVEL=trace. Every answer must be in its route family's contract, with no undocumented 5xx, none slower than
// 2 s, the server alive at the end and no secret in its log. Seeded: a failure prints its case and how to replay it.
// FUZZ_SEED, FUZZ_REQUESTS and FUZZ_CASE override the defaults; `npm run fuzz` runs long campaigns.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeFailure, formatSummary, runCampaign, type Target } from './fuzz/engine.js'
import { PARTNER_REDIRECT } from './fuzz/oracle.js'
import { LIMITS, THROTTLES_RAISED } from './fuzz/raw.js'
import { startTestApp, type TestApp } from './support/harness.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_260_611)
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 2_500)
const ONLY = process.env['FUZZ_CASE'] === undefined ? undefined : Number(process.env['FUZZ_CASE'])

let t: TestApp
let target: Target
beforeAll(async () => {
  const env = Object.fromEntries(Object.entries({ ...LIMITS, ...THROTTLES_RAISED }).map(([k, v]) => [k, String(v)]))
  t = await startTestApp({ env: { ...env, LOG_LEVEL: 'trace' } })
  const created = await t.app.services.oauth.clients.create({ name: 'Fuzz partner', redirectUris: [PARTNER_REDIRECT], scopes: ['reporting'], public: false })
  target = {
    baseUrl: t.baseUrl,
    key: t.sandboxKey,
    partner: { clientId: created.client.publicId!, secret: created.secret! },
    logText: async () => t.logs.map((line) => JSON.stringify(line, (_k, v: unknown) => (typeof v === 'number' ? 0 : v))).join('\n'),
    running: () => true,
  }
})
afterAll(() => t?.close())

it(`answers ${REQUESTS} generated requests (seed ${SEED}) in contract, on time, alive, and logs no secret`, async () => {
  console.log(`fuzz: seed ${SEED}, ${REQUESTS} requests${ONLY === undefined ? '' : `, case ${ONLY} only`} (replay: FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} FUZZ_CASE=<n>)`)
  const summary = await runCampaign(target, { seed: SEED, requests: REQUESTS, only: ONLY, concurrency: 6, log: (line) => console.log(line) })
  console.log(formatSummary(summary))
  const failures = summary.failures.map((f) => describeFailure(SEED, REQUESTS, f)).join('\n')
  expect({ outside: summary.outsideContract, unexpected5xx: summary.unexpected5xx, slow: summary.slow, alive: summary.alive, logCaptured: summary.logCaptured, secrets: summary.secretsInLog }, failures).toEqual({
    outside: 0,
    unexpected5xx: 0,
    slow: 0,
    alive: true,
    logCaptured: true,
    secrets: [],
  })
}, 240_000)
