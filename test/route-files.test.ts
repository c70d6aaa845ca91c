// From a URL to its files in one guess: every operation of the OpenAPI document has its whole path written in
// exactly one routes.ts under src/, in a module that holds its schemas (schemas.ts) and its service (service.ts),
// and no file but a repository.ts writes SQL. A module keeps a repository.ts when it stores rows of its own; one that
// reads through another module's service (a download through the reports service) or a feature's shared store (the
// OAuth endpoints) has none.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/harness.js'

const SRC = new URL('../src/', import.meta.url).pathname
const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .map((f) => f.split('\\').join('/'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
const text = new Map(sources.map((f) => [f, readFileSync(join(SRC, f), 'utf8')]))
/** The platform's own operations, outside every feature: the home page, health and metrics. */
const PLATFORM_PATHS = new Set(['/', '/health/live', '/health/ready', '/metrics'])

let t: TestApp
let operations: { method: string; path: string }[]
beforeAll(async () => {
  t = await startTestApp()
  const doc = (await t.call('GET', '/openapi.json', { headers: { 'x-svc-key': undefined } })).json as { paths: Record<string, Record<string, unknown>> }
  operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })))
})
afterAll(() => t.close())

/** The route's path as Fastify declares it: `{param}` is `:param`. */
const declared = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1')

describe('route files', () => {
  it('finds the operations (the sandbox app has every feature mounted)', () => {
    expect(operations.length).toBeGreaterThan(40)
  })

  it("writes every operation's whole path in exactly one routes.ts, beside its schemas.ts and service.ts", () => {
    const problems: string[] = []
    for (const { method, path } of operations) {
      if (PLATFORM_PATHS.has(path)) continue
      const literal = `'${declared(path)}'`
      const files = sources.filter((f) => text.get(f)!.includes(literal))
      const routes = files.filter((f) => f.endsWith('/routes.ts'))
      if (routes.length !== 1) {
        problems.push(`${method} ${path}: in ${routes.length} routes.ts files (${routes.join(', ') || 'none'})`)
        continue
      }
      const module = dirname(routes[0]!)
      for (const name of ['schemas.ts', 'service.ts']) if (!existsSync(join(SRC, module, name))) problems.push(`${method} ${path}: ${module}/ has no ${name}`)
    }
    expect(problems).toEqual([])
  })

  it('serves the platform’s own operations from platform/', () => {
    const served = operations.filter((o) => PLATFORM_PATHS.has(o.path)).map((o) => o.path)
    expect(new Set(served)).toEqual(PLATFORM_PATHS)
    for (const path of PLATFORM_PATHS) {
      if (path === '/') continue
      expect(sources.filter((f) => text.get(f)!.includes(`'${path}'`)).every((f) => f.startsWith('platform/')), path).toBe(true)
    }
  })

  it('writes SQL in repository.ts files only (platform/ and migrations/ aside)', () => {
    const sql = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(/
    const outside = sources.filter((f) => !f.startsWith('platform/') && !f.startsWith('migrations/') && !f.endsWith('/repository.ts') && sql.test(text.get(f)!))
    expect(outside).toEqual([])
  })
})
