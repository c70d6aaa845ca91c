// `npm run bench:webhooks`: durable webhook deliveries against raw signed POSTs, in one run, to the same receiver in
// its own process (bench/server.ts receiver), on SQLite and, with BENCH_PG_URL (an admin URL, e.g.
// postgres://postgres@127.0.0.1:55432/postgres), on a fresh PostgreSQL database too.
//   raw:        BENCH_EVENTS POSTs with the notification's headers and both HMAC signatures, from a bare undici client
//               with keep-alive, 16 at a time (what finapi sends one subscription at once).
//   throughput: BENCH_EVENTS events committed at once (one transaction) to `finapi serve` (the compiled build,
//               sandbox mode); timed from the commit until the receiver has every notification.
//   latency:    events posted to the ingestion call (POST /webhooks/v1/events, HTTP Signature) at BENCH_RATE a
//               second for BENCH_SECONDS; the receiver measures each notification's eventDate to its first arrival.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { prepareDatabase } from '../src/bootstrap.js'
import { loadConfig } from '../src/config.js'
import { systemClock } from '../src/platform/clock.js'
import { openDatabase } from '../src/platform/db/database.js'
import { createLogger } from '../src/platform/logger.js'
import { SANDBOX_REPORTING_KEYS } from '../src/applications/reporting-keys/sandbox.js'
import { createServices } from '../src/services.js'
import { cpuSeconds } from './cpu.js'
import { freePort } from './free-port.js'
import { startReceiver } from './receiver.js'
import { freshDatabase, waitFor as waitForReady } from './volume.js'
import { benchNodeArgs, deployedEnv } from './deployed.js'

const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 5_000)
const RATE = Number(process.env['BENCH_RATE'] ?? 100)
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const PG_URL = process.env['BENCH_PG_URL']
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3)
const CONCURRENCY = 16
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const BIN = fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const EVENT = 'invoicing.customer.invoice.paid'
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The server's log lines, at info to a file as a deployment's are (they were sent to /dev/null before 2026-11-26). */
const logs = mkdtempSync(join(tmpdir(), 'finapi-bench-webhooks-log-'))

async function startFinapi(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const env = { ...deployedEnv(), PATH: process.env['PATH'] ?? '', PORT: String(port), DATABASE_URL: databaseUrl, JOBS_POLL_MS: '50', RATE_LIMIT_PER_MINUTE: '100000000', MERCHANT_API_RATE_LIMIT_PER_MINUTE: '100000000' }
  // BENCH_NODE_ARGS: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server.
  const nodeArgs = benchNodeArgs()
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve'], { env, stdio: ['ignore', openSync(join(logs, 'finapi.log'), 'a'), 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  await waitForReady(`${url}/health/ready`, child)
  return { child, url }
}

interface Stats {
  count: number
  distinct: number
  p50: number
  p99: number
  max: number
}
const stats = async (receiver: string, reset = false): Promise<Stats> => (await (await request(`${receiver}/stats${reset ? '?reset' : ''}`)).body.json()) as Stats
async function waitFor(receiver: string, distinct: number, timeoutMs = 600_000): Promise<Stats> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = await stats(receiver)
    if (s.distinct >= distinct) return s
    if (Date.now() > deadline) throw new Error(`the receiver has ${s.distinct} of ${distinct}`)
    await pause(20)
  }
}

/** BENCH_EVENTS signed POSTs as finapi sends them, from a bare client with keep-alive, CONCURRENCY at a time. */
async function raw(receiver: string, count: number): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: CONCURRENCY })
  const key = randomBytes(32)
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++
        const id = randomUUID()
        const t = Date.now()
        const body = JSON.stringify({ notificationId: id, retryNumber: 0, eventType: EVENT, eventDate: new Date(t).toISOString(), webhookId: 'raw', organizationId: 'testrest', productId: 'customerInvoicing', transactionTraceId: randomUUID(), requestType: 'NEW', payloads: [{ data: {}, organizationId: 'testrest' }] })
        const sig = createHmac('sha256', key).update(`${t}.${body}`).digest('base64')
        const std = createHmac('sha256', key).update(`${id}.${Math.floor(t / 1000)}.${body}`).digest('base64')
        const res = await request(`${receiver}/hooks`, { method: 'POST', dispatcher: agent, body, headers: { 'content-type': 'application/json', 'v-c-signature': `t=${t};keyId=k;sig=${sig}`, 'webhook-id': id, 'webhook-timestamp': String(Math.floor(t / 1000)), 'webhook-signature': `v1,${std}` } })
        await res.body.dump()
      }
    }),
  )
  const elapsed = performance.now() - started
  await agent.close()
  return (count / elapsed) * 1000
}

/** An ingestion call signed as the sandbox merchant testrest (HTTP Signature, as the official SDK signs). */
function publishOverHttp(base: string, body: string) {
  const key = SANDBOX_REPORTING_KEYS[0]
  const date = new Date().toUTCString()
  const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`
  const host = 'apitest.cybersource.com'
  const signed = `host: ${host}\ndate: ${date}\nrequest-target: post /webhooks/v1/events\ndigest: ${digest}\nv-c-merchant-id: ${key.organizationId}`
  const signature = createHmac('sha256', Buffer.from(key.secret, 'base64')).update(signed).digest('base64')
  return request(`${base}/webhooks/v1/events`, {
    method: 'POST',
    body,
    headers: { host, date, digest, 'content-type': 'application/json', 'v-c-merchant-id': key.organizationId, signature: `keyid="${key.id}", algorithm="HmacSHA256", headers="host date request-target digest v-c-merchant-id", signature="${signature}"` },
  })
}

async function measure(name: string, databaseUrl: string): Promise<void> {
  const receiver = await startReceiver()
  const config = loadConfig({ MODE: 'sandbox', DATABASE_URL: databaseUrl, JOBS_POLL_MS: '0' })
  const db = openDatabase(config.databaseUrl)
  const infrastructure = { db, clock: systemClock, logger: createLogger('silent') }
  const services = createServices(config, infrastructure)
  await prepareDatabase(config, infrastructure, services)
  const acting = { id: 'testrest', authenticatedId: 'testrest' }
  await services.webhooks.keys.save(acting, {})
  await services.webhooks.subscriptions.create(acting, { products: [{ productId: 'customerInvoicing', eventTypes: [EVENT] }], webhookUrl: `${receiver.url}/hooks` })
  const finapi = await startFinapi(databaseUrl)
  const publish = async (count: number) => {
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i++) await services.webhooks.events.publish({ eventType: EVENT, organizationId: 'testrest', data: { invoiceNumber: String(i) } }, trx)
    })
  }
  try {
    // Warm both paths up (JIT, connections, statement caches).
    await raw(receiver.url, 500)
    await stats(receiver.url, true)
    await publish(500)
    await waitFor(receiver.url, 500)
    await stats(receiver.url, true)

    // Raw and finapi alternate, three times each; the medians are reported (the machine is shared and noisy).
    const rawRates: number[] = []
    const rates: number[] = []
    const cpu: number[] = []
    let requests = 0
    for (let round = 0; round < RUNS; round++) {
      rawRates.push(await raw(receiver.url, EVENTS))
      await stats(receiver.url, true)
      await publish(EVENTS)
      const started = performance.now()
      const cpuBefore = cpuSeconds(finapi.child.pid)
      requests += (await waitFor(receiver.url, EVENTS)).count
      rates.push((EVENTS / (performance.now() - started)) * 1000)
      cpu.push(((cpuSeconds(finapi.child.pid) - cpuBefore) / EVENTS) * 1e6)
      await stats(receiver.url, true)
    }
    const rawRate = median(rawRates)
    const rate = median(rates)
    const cpuPerDelivery = median(cpu)

    let sent = 0
    const t0 = performance.now()
    while (performance.now() - t0 < SECONDS * 1000) {
      const due = Math.floor(((performance.now() - t0) / 1000) * RATE)
      while (sent < due) {
        sent++
        const res = await publishOverHttp(finapi.url, JSON.stringify({ eventType: EVENT, data: { invoiceNumber: String(sent) } }))
        if (res.statusCode !== 201) throw new Error(`the ingestion call answered ${res.statusCode}: ${await res.body.text()}`)
        await res.body.dump()
      }
      await pause(2)
    }
    const latency = await waitFor(receiver.url, sent)
    console.log(
      `${name.padEnd(10)} raw ${rawRate.toFixed(0).padStart(6)}/s   finapi ${rate.toFixed(0).padStart(6)}/s   ratio ${(rate / rawRate).toFixed(2)}   (medians of ${RUNS}: ${requests} requests for ${RUNS * EVENTS} notifications; server CPU ${cpuPerDelivery.toFixed(0)} µs each)\n${''.padEnd(11)}` +
        `event→first attempt at ${RATE}/s: p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms (${sent} events)`,
    )
  } finally {
    finapi.child.kill('SIGTERM')
    receiver.child.kill('SIGTERM')
    await new Promise((resolve) => finapi.child.once('exit', resolve))
    await db.close()
  }
}

console.log(`\n${EVENTS} deliveries to one subscription, a receiver in its own process on 127.0.0.1; latency at ${RATE} events/s for ${SECONDS} s`)
// Each on a fresh database, dropped after (SQLite's folder is a few hundred MB a run).
try {
  for (const [label, dialect] of [['SQLite', 'sqlite'], ...(PG_URL ? [['PostgreSQL', 'postgres']] : [])] as const) {
    const database = await freshDatabase(dialect, 'webhooks', PG_URL)
    try {
      await measure(label, database.url)
    } finally {
      await database.drop()
    }
  }
} finally {
  rmSync(logs, { recursive: true, force: true })
}
