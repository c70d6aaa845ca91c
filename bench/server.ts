// The benchmarks' helper servers, as child processes. `raw`: a bare node:http server that answers each path with the
// bytes given for it in RAW_BODIES or in the file RAW_BODIES_FILE (a JSON object of path → body). `fastify`: the same
// answers from a bare Fastify app that logs one line per request through pino to the file FLOOR_LOG (below).
// `receiver`: a webhook receiver (below). Each prints the port it listens on. (finapi itself is measured as
// `npm start` runs it: bin/finapi.js.)
import { openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

const mode = process.argv[2]

if (mode === 'raw') {
  // RAW_BODIES_FILE for bodies too large for an environment variable (a report page is megabytes).
  const file = process.env['RAW_BODIES_FILE']
  const raw = file ? readFileSync(file, 'utf8') : (process.env['RAW_BODIES'] ?? '{}')
  const bodies = new Map(Object.entries(JSON.parse(raw) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]))
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
}

// `fastify`: the floor of finapi's stack (`npm run bench` with BENCH_FLOOR=1). The raw server's answers, headers
// included, from Fastify 5 with one catch-all route, and one line per request at info (what Fastify's own request
// logging writes on completion: the request's id, method, URL, status and time) through pino to a file by finapi's
// own destination (64 KB chunks, written synchronously when full: platform/log-destination.ts), since pino's
// asynchronous one cost this server about a fifth more CPU per request than finapi's own logging. No hooks, no schema,
// no authentication: what a Fastify service pays before it does its own work.
if (mode === 'fastify') {
  const { default: Fastify, LogController } = await import('fastify')
  const { default: pino } = await import('pino')
  // Loaded here, as Fastify and pino are: the raw server and the receiver need none of them.
  const { systemClock } = await import('../src/platform/clock.js')
  const { bufferedLogDestination } = await import('../src/platform/log-destination.js')
  const bodies = new Map(Object.entries(JSON.parse(process.env['RAW_BODIES'] ?? '{}') as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]))
  const dest = process.env['FLOOR_LOG']
  if (!dest) throw new Error('FLOOR_LOG: the file the bare Fastify server logs to')
  const destination = bufferedLogDestination({ fd: openSync(dest, 'a'), chunkBytes: 64 * 1024, flushMs: 100, clock: systemClock })
  // One line when a request ends, where Fastify logs it (no hook), as finapi's own log controller does.
  class OneLine extends LogController {
    override incomingRequest(): void {}
    override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
      request.log.info({ req: { method: request.method, url: request.url }, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed')
    }
  }
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, destination), logController: new OneLine() })
  let n = 0
  app.get('/*', (request, reply) => {
    const body = bodies.get(request.url) ?? Buffer.from('{}')
    void reply
      .header('x-correlationid', `00000000-0000-4000-8000-${String(n++).padStart(12, '0')}`)
      .header('content-type', 'application/json; charset=utf-8')
      .send(body)
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  process.stdout.write(`PORT ${new URL(address).port}\n`)
}

// `receiver`: a webhook receiver answering every POST 200 `ok`. It counts requests and distinct notifications
// (webhook-id), and the time from each notification's eventDate to its first arrival; GET /stats answers them
// (and `?reset` starts over).
if (mode === 'receiver') {
  let count = 0
  const first = new Map<string, number>()
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      const latencies = [...first.values()].sort((a, b) => a - b)
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, distinct: first.size, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? 0 }))
      if (req.url?.includes('reset')) {
        count = 0
        first.clear()
      }
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      count++
      const id = String(req.headers['webhook-id'])
      if (!first.has(id)) {
        const eventDate = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventDate?: string }).eventDate
        first.set(id, eventDate ? Date.now() - Date.parse(eventDate) : 0)
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok')
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`)
  })
}

// Exit normally on a signal, so `node --cpu-prof` can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0))
