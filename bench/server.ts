// Child process for the benchmarks. `app`: the real app in sandbox mode (strict tokens) on a fresh SQLite file,
// with the probe route behind the full gateway as well. `raw`: a bare node:http server that answers each path
// with the bytes given for it in RAW_BODIES (a JSON object of path → body). Prints the port it listens on.
import { createServer } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { prepareDatabase } from '../src/bootstrap.js'
import { createServices } from '../src/services.js'
import { loadConfig } from '../src/config.js'
import { systemClock } from '../src/platform/clock.js'
import { openDatabase } from '../src/platform/db/database.js'
import { createLogger } from '../src/platform/logger.js'
import { probeFeature } from '../test/support/probe.js'

const mode = process.argv[2]

if (mode === 'raw') {
  const bodies = new Map(Object.entries(JSON.parse(process.env['RAW_BODIES'] ?? '{}') as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]))
  let n = 0
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '') ?? Buffer.from('{}')
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      'x-correlationid': `00000000-0000-4000-8000-${String(n++).padStart(12, '0')}`,
    })
    res.end(body)
  })
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`)
  })
} else {
  const dir = mkdtempSync(join(tmpdir(), 'finapi-bench-'))
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    RATE_LIMIT_PER_MINUTE: '100000000',
    SANDBOX_STRICT_TOKENS: 'true',
    LOG_LEVEL: 'warn',
  })
  const db = openDatabase(config.databaseUrl)
  const infrastructure = { db, clock: systemClock, logger: createLogger(config.logLevel) }
  const services = createServices(config, infrastructure, { extraV2Routes: [probeFeature] })
  await prepareDatabase(config, infrastructure, services)
  const app = await buildApp({ config, ...infrastructure, services })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`)
}

// Exit normally on a signal, so `node --cpu-prof` can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0))
