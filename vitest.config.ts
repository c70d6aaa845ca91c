import { appendFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The command-line and process tests run bin/finapi.js, which runs the compiled build.
    globalSetup: ['test/support/build.ts'],
    pool: 'forks',
    // Two test files at a time even on two cores (vitest's default there is one): most of a file's time is spent
    // waiting on the servers, browsers and databases it started, so a second file fills that wait.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // An unhandled error fails the run (vitest's default, kept). `npm test` also collects each one here and prints
    // them again after the totals, so the end of a long CI log, often all that is kept, names the error.
    onUnhandledError(error) {
      const file = process.env['FINAPI_UNHANDLED_LOG']
      if (!file) return
      const { type, name, message, stack } = error as Error & { type: string }
      const code = (error as { code?: unknown }).code
      appendFileSync(file, `${JSON.stringify({ type, name, message, code, stack: stack?.split('\n').slice(0, 12).join('\n') })}\n`)
    },
  },
})
