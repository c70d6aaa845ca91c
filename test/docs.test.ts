// The docs cannot drift from the code: the error-code pages are what `npm run docs:errors` generates from the
// families' tables, every shell or JavaScript block quotes a program of examples/ (which test/examples.test.ts runs)
// or says why it is not run, every relative link and anchor leads somewhere, the configuration page lists exactly
// the variables src/config.ts reads, the command page every command, and the README stays a newcomer's page.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, it } from 'vitest'
import { stalePages } from '../scripts/docs-errors.js'
import { ROOT, blockProblems, fencedBlocks, markdownFiles } from '../scripts/docs-examples.js'
import { finapiCommands } from './support/cli.js'

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** The text outside fenced blocks and inline code, where headings and links live. */
function prose(text: string): string {
  let result = ''
  let at = 0
  for (const block of fencedBlocks(text)) {
    result += text.slice(at, block.start)
    at = block.end
  }
  return (result + text.slice(at)).replace(/`[^`\n]*`/g, '``')
}

/** GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces as hyphens, repeats numbered). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  const withoutBlocks = fencedBlocks(text).reduceRight((t, b) => t.slice(0, b.start) + t.slice(b.end), text)
  for (const [, heading] of withoutBlocks.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    found.add(n === 0 ? base : `${base}-${n}`)
  }
  return found
}

describe('docs', () => {
  it('keeps the README a newcomer’s page (at most 300 lines)', () => {
    expect(read('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(300)
  })

  it('has error-code pages that are exactly what npm run docs:errors writes', () => {
    expect(stalePages(), 'run npm run docs:errors').toEqual([])
  })

  it('shows only programs of examples/ (quoted exactly), or says why a block is not run', () => {
    expect(markdownFiles().flatMap((file) => blockProblems(file, read(file)))).toEqual([])
  })

  it('links only to files and anchors that exist', () => {
    const broken: string[] = []
    for (const file of markdownFiles()) {
      for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target!)) continue
        const [path, anchor] = target!.split('#') as [string, string | undefined]
        const resolved = path === '' ? file : normalize(join(dirname(file), path))
        if (!existsSync(join(ROOT, resolved))) broken.push(`${file}: ${target} (no such file)`)
        else if (anchor !== undefined) {
          if (!resolved.endsWith('.md') || statSync(join(ROOT, resolved)).isDirectory()) broken.push(`${file}: ${target} (an anchor in a non-page)`)
          else if (!anchors(read(resolved)).has(anchor)) broken.push(`${file}: ${target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('documents exactly the environment variables src/config.ts reads', () => {
    const schema = read('src/config.ts').split('const EnvSchema = Type.Object({')[1]!.split('\n})')[0]!
    const read_ = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+): Type\./gm)].map((m) => m[1]!)
    const documented = [...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!)
    expect(read_.length).toBeGreaterThan(30)
    expect([...documented].sort()).toEqual([...read_].sort())
  })

  it('documents every command of finapi, subcommands included', () => {
    const commands = finapiCommands().map((words) => words.join(' '))
    const page = read('docs/cli.md')
    expect(commands.length).toBeGreaterThan(25)
    expect(commands.filter((command) => !page.includes(`\`finapi ${command}`))).toEqual([])
  })

  it('indexes every page of docs/ in docs/README.md', () => {
    const index = read('docs/README.md')
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md')
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([])
  })
})
