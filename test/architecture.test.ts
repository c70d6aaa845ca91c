// The layout's rules, checked on the source itself: platform/ imports no feature, a repository is used only inside
// its own module (no feature, and no sub-module, reaches into another's), OAuth does not depend on banking, reporting
// and webhooks do not depend on each other, migrations import only platform/db, there is no import cycle between
// files (type imports included) nor between folders, no async hooks, and no source file outgrows 400 lines (data
// files aside).
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = new URL('../src/', import.meta.url).pathname
const TESTS = new URL('./', import.meta.url).pathname
/** Files that are data rather than code: generated fixtures and tables. */
const DATA_FILES = new Set(['banking/sandbox-data.ts', 'reporting/report-definitions/field-catalog.ts', 'reporting/report-definitions/transaction-request-fields.ts'])
const MAX_LINES = 400

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.split('\\').join('/'))

/** Every relative import of a file (static, dynamic and type-only), resolved to a path under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8')
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!)
  return specifiers.map((s) => relative(SRC, resolve(dirname(join(SRC, file)), s)).replace(/\.js$/, '.ts'))
}

const graph = new Map(files.filter((f) => !f.endsWith('.test.ts')).map((f) => [f, importsOf(f)]))
const folder = (file: string) => (file.includes('/') ? file.split('/')[0]! : '')

/** Every cycle of a directed graph, as `a -> b -> a`. */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return
    if (state.get(node) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(node)), node].join(' -> '))
      return
    }
    state.set(node, 'visiting')
    for (const next of new Set(edges.get(node) ?? [])) visit(next, [...path, node])
    state.set(node, 'done')
  }
  for (const node of edges.keys()) visit(node, [])
  return cycles
}

describe('the layout', () => {
  it('platform/ imports nothing outside platform/ (migrations aside)', () => {
    const leaks = [...graph].flatMap(([file, deps]) => (folder(file) === 'platform' ? deps.filter((d) => !['platform', 'migrations'].includes(folder(d))).map((d) => `${file} -> ${d}`) : []))
    expect(leaks).toEqual([])
  })

  // A module is used through its service (narrowed with Pick<>), never its repository: a repository is imported only
  // by the files of its own folder. So a feature never reaches into another's rows, and no sub-module (reporting/
  // reports/, webhooks/delivery/, …) into a sibling's or its feature's root into a sub-module's.
  it('imports a repository only from its own folder', () => {
    const reaches = [...graph].flatMap(([file, deps]) => deps.filter((d) => /(^|\/)repository\.ts$/.test(d) && !file.startsWith(`${dirname(d)}/`)).map((d) => `${file} -> ${d}`))
    expect(reaches).toEqual([])
  })

  it('OAuth does not depend on banking', () => {
    const reaches = [...graph].flatMap(([file, deps]) => (folder(file) === 'oauth' ? deps.filter((d) => folder(d) === 'banking').map((d) => `${file} -> ${d}`) : []))
    expect(reaches).toEqual([])
  })

  it('reporting and webhooks do not depend on each other (both stand on merchant-api/)', () => {
    const reaches = [...graph].flatMap(([file, deps]) => {
      const other = { reporting: 'webhooks', webhooks: 'reporting' }[folder(file)]
      return other ? deps.filter((d) => folder(d) === other).map((d) => `${file} -> ${d}`) : []
    })
    expect(reaches).toEqual([])
  })

  // Migrations are history: what they do must not change when live code does.
  it('migrations import nothing outside migrations/ and platform/db/', () => {
    const reaches = [...graph].flatMap(([file, deps]) => (folder(file) === 'migrations' ? deps.filter((d) => folder(d) !== 'migrations' && !d.startsWith('platform/db/')).map((d) => `${file} -> ${d}`) : []))
    expect(reaches).toEqual([])
  })

  it('has no import cycle', () => {
    expect(cyclesOf(graph)).toEqual([])
  })

  // Arrows between folders point one way: features → shared modules → platform. The migrations count as platform's
  // (the platform and each feature list theirs, importing them downward), and within a feature its sub-modules form no
  // cycle either (files at the feature's root, such as feature.ts, are the feature's own and are not counted).
  it('has no import cycle between folders, nor between the sub-modules of a feature', () => {
    const top = (file: string) => (folder(file) === 'migrations' ? 'platform' : folder(file))
    const sub = (file: string) => (file.split('/').length >= 3 ? file.split('/').slice(0, 2).join('/') : undefined)
    const folders = new Map<string, string[]>()
    const subModules = new Map<string, string[]>()
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        const [a, b] = [top(file), top(dep)]
        if (a && b && a !== b) folders.set(a, [...(folders.get(a) ?? []), b])
        const [x, y] = [sub(file), sub(dep)]
        if (x && y && x !== y && folder(file) === folder(dep)) subModules.set(x, [...(subModules.get(x) ?? []), y])
      }
    }
    expect(cyclesOf(folders)).toEqual([])
    expect(cyclesOf(subModules)).toEqual([])
  })

  it('uses no async hooks (no AsyncLocalStorage): on Node 20 the first one left a promise hook on every request for good', () => {
    // hashingOnThisThread once used an AsyncLocalStorage at start-up; every account read then cost about 25 % more CPU.
    const users = [...graph.keys()].filter((f) => /from 'node:async_hooks'|new AsyncLocalStorage\b|createHook\(/.test(readFileSync(join(SRC, f), 'utf8')))
    expect(users).toEqual([])
  })

  it(`keeps every source file, tests included, within ${MAX_LINES} lines`, () => {
    const testFiles = readdirSync(TESTS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(TESTS, f))
    const long = [...files.filter((f) => !DATA_FILES.has(f)).map((f) => join(SRC, f)), ...testFiles].flatMap((path) => {
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n').length
      return lines > MAX_LINES ? [`${relative(SRC, path)}: ${lines}`] : []
    })
    expect(long).toEqual([])
  })
})
