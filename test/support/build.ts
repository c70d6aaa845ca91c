// Vitest global setup: the tests that run the real `finapi` command (bin/finapi.js) run the compiled build, so it
// is brought up to date from src/ once before any test file runs (incremental, so an unchanged tree costs little).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url))
  execFileSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
}
