// The benchmarks' helper servers, as child processes. `raw`: a bare node:http server that answers each path with the
// bytes given for it in RAW_BODIES or in the file RAW_BODIES_FILE (a JSON object of path → body). `receiver`: a
// webhook receiver (below). Each prints the port it listens on. (finapi itself is measured as `npm start` runs it:
// bin/finapi.js.)
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

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
