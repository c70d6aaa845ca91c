// The benchmarks' baseline, as a child process: `raw`, a bare node:http server that answers each path with the
// bytes given for it in RAW_BODIES or in the file RAW_BODIES_FILE (a JSON object of path → body). Prints the port it
// listens on. (finapi itself is measured as `npm start` runs it: bin/finapi.js.)
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

// Exit normally on a signal, so `node --cpu-prof` can write its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0))
