// The environment a deployed `finapi serve` runs with: what bin/finapi (the `finapi` command, `npm start`) exports
// before it starts Node, read from that script so that a benchmark, which starts bin/finapi.js itself (with Node's
// flags of its own: --cpu-prof, --trace-gc), measures the server as it is deployed. A value in the benchmark's own
// environment wins, as it does for the script. Plain JavaScript (types in deployed.d.ts): startup.mjs runs without tsx.
import { readFileSync } from 'node:fs'

export function deployedEnv() {
  const env = {}
  for (const [, name, value] of readFileSync(new URL('../bin/finapi', import.meta.url), 'utf8').matchAll(/^export (\w+)="\$\{\1:-([^}]*)\}"$/gm)) env[name] = process.env[name] ?? value
  // A script rewritten in another form must not leave the benchmarks measuring a server it no longer describes.
  if (Object.keys(env).length === 0) throw new Error('bench/deployed.js: no `export NAME="${NAME:-value}"` line found in bin/finapi')
  return env
}

/** BENCH_NODE_ARGS: more of node's own flags for the finapi a benchmark starts (say --cpu-prof, --perf-basic-prof). */
export function benchNodeArgs() {
  return (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean)
}
