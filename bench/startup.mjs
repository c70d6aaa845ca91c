#!/usr/bin/env node
// Start-up time of `finapi serve` until /health/ready answers 200, median of N runs, on a fresh SQLite database
// (migrations and the sandbox data load) and again on the database the first run left (a restart), and the peak
// RSS (VmHWM) each had reached by then.
// Usage: node bench/startup.mjs [path/to/bin/finapi.js] [runs]   (default: this checkout's bin, 5 runs)
// BENCH_NODE_ARGS: node options given before the bin (e.g. --heap-growing-percent=0, to compare V8 settings). Every
// build measured runs with this checkout's bin/finapi environment (deployed.js).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deployedEnv } from './deployed.js'

const bin = process.argv[2] ?? fileURLToPath(new URL('../bin/finapi.js', import.meta.url))
const runs = Number(process.argv[3] ?? 5)

async function startOnce(databaseUrl) {
  const started = performance.now()
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), bin, 'serve'], { env: { ...deployedEnv(), PATH: process.env.PATH, PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', PRUNE_INTERVAL_SECONDS: '0' } })
  let output = ''
  const base = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      output += d
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(output)
      if (m) resolve(m[1])
    })
    child.on('exit', () => reject(new Error(`exited before listening:\n${output}`)))
  })
  for (;;) {
    const res = await fetch(`${base}/health/ready`).catch(() => undefined)
    if (res?.status === 200) break
    await new Promise((r) => setTimeout(r, 5))
  }
  const ms = performance.now() - started
  // The peak of its life so far: start-up's (the sandbox data's load on a fresh database) before any request.
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024
  child.kill('SIGTERM')
  await new Promise((r) => child.on('close', r))
  return { ms, hwm }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fresh = []
const restart = []
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'finapi-startup-'))
  const url = `sqlite:${join(dir, 'db.sqlite')}`
  fresh.push(await startOnce(url))
  restart.push(await startOnce(url))
  rmSync(dir, { recursive: true, force: true })
}
const range = (xs) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`
const ms = (xs) => xs.map((x) => x.ms)
const mb = (xs) => xs.map((x) => x.hwm)
console.log(`${bin}: ready after ${median(ms(fresh)).toFixed(0)} ms on a fresh database, ${median(ms(restart)).toFixed(0)} ms on a restart (medians of ${runs})`)
console.log(`peak RSS (VmHWM) when ready: fresh median ${median(mb(fresh)).toFixed(0)} MiB (${range(mb(fresh))}), restart median ${median(mb(restart)).toFixed(0)} MiB (${range(mb(restart))})`)
