// `npm run docs:openapi-examples`: writes the OpenAPI document's examples (docs/openapi-examples.json) anew from real
// sandbox answers. They are the answers of the success tour of test/openapi-conformance.test.ts, against a sandbox
// server on a fresh database and a fixed clock; run in this mode, the test writes them instead of comparing them
// with the file, so the file is always exactly what the test then checks. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
const run = spawnSync(process.execPath, [vitest, 'run', 'test/openapi-conformance.test.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, OPENAPI_EXAMPLES: 'write' },
})
process.exit(run.status ?? 1)
