// The layout's rules, checked on the source itself: platform/ imports no feature, no module reaches into another
// module's repository, OAuth does not depend on banking, there is no import cycle (type imports included), and no
// source file outgrows 400 lines (data files aside).
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

describe('the layout', () => {
  it('platform/ imports nothing outside platform/ (migrations aside)', () => {
    const leaks = [...graph].flatMap(([file, deps]) => (folder(file) === 'platform' ? deps.filter((d) => !['platform', 'migrations'].includes(folder(d))).map((d) => `${file} -> ${d}`) : []))
    expect(leaks).toEqual([])
  })

  it("no module imports another module's repository", () => {
    const reaches = [...graph].flatMap(([file, deps]) => deps.filter((d) => /(^|\/)repository\.ts$/.test(d) && folder(d) !== folder(file)).map((d) => `${file} -> ${d}`))
    expect(reaches).toEqual([])
  })

  it('OAuth does not depend on banking', () => {
    const reaches = [...graph].flatMap(([file, deps]) => (folder(file) === 'oauth' ? deps.filter((d) => folder(d) === 'banking').map((d) => `${file} -> ${d}`) : []))
    expect(reaches).toEqual([])
  })

  it('has no import cycle', () => {
    const cycles: string[] = []
    const state = new Map<string, 'visiting' | 'done'>()
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
        return
      }
      state.set(file, 'visiting')
      for (const dep of graph.get(file) ?? []) visit(dep, [...path, file])
      state.set(file, 'done')
    }
    for (const file of graph.keys()) visit(file, [])
    expect(cycles).toEqual([])
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
