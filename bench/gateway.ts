// `npm run bench`: GET /v2/probe?v=1 through the whole gateway, against a raw node:http server answering the
// same bytes, in one run on this machine. Each server runs in its own process; autocannon drives each with 50
// connections for BENCH_SECONDS (default 10) after a short warm-up. Quote the ratio, not the absolute numbers.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10)
const CONNECTIONS = 50
const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))
const PATH = '/v2/probe?v=1'
const HEADERS = { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'finapi-bench/1.0' }

function start(mode: 'app' | 'raw', env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout!.on('data', (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1]
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` })
    })
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })
}

async function drive(url: string, duration: number) {
  const result = await autocannon({ url: url + PATH, connections: CONNECTIONS, duration, headers: HEADERS })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

const app = await start('app')
const sample = await request(app.url + PATH, { headers: HEADERS })
const body = await sample.body.text()
if (sample.statusCode !== 200) throw new Error(`app answered ${sample.statusCode}: ${body}`)
const raw = await start('raw', { RAW_BODY: body })

try {
  const results: Record<string, Awaited<ReturnType<typeof drive>>> = {}
  for (const [name, target] of [['raw node:http', raw], ['finapi gateway', app]] as const) {
    await drive(target.url, 2) // warm-up: JIT, connection setup, SQLite page cache
    results[name] = await drive(target.url, SECONDS)
  }
  console.log(`\nGET ${PATH}, ${CONNECTIONS} connections, ${SECONDS} s each, 127.0.0.1`)
  console.log('target           req/s     p50 ms  p99 ms')
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(16)} ${r.rps.toFixed(0).padStart(8)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}`)
  }
  const ratio = results['finapi gateway']!.rps / results['raw node:http']!.rps
  console.log(`ratio gateway/raw req/s: ${(ratio * 100).toFixed(1)}%`)
} finally {
  app.child.kill('SIGTERM')
  raw.child.kill('SIGTERM')
}
