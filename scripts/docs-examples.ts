// `npm run docs:examples`: the README and docs/ show programs by quoting the files in examples/, which
// test/examples.test.ts runs against a real server. A fenced block quotes a file when the line just before it is
//   <!-- example: examples/banking/tour.sh -->
// and this script rewrites every such block from its file. A shell or JavaScript block that quotes no file must say
// why it is not run, on the line before it:
//   <!-- not runnable: starts a ten-minute campaign -->
// `--check` writes nothing and exits 1 on any problem; test/docs.test.ts runs the same check.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Fence languages that hold something a reader would run. */
export const RUNNABLE = new Set(['sh', 'bash', 'shell', 'console', 'zsh', 'js', 'mjs', 'cjs', 'javascript', 'ts', 'typescript'])

const EXAMPLE = /^<!-- example: (\S+) -->$/
const NOT_RUNNABLE = /^<!-- not runnable: \S.* -->$/

export interface Block {
  /** 1-based line of the opening fence. */
  line: number
  language: string
  /** The line before the fence (its marker, if any). */
  marker: string
  /** The lines between the fences, each with its newline. */
  body: string
  /** Offsets of the body in the file, for rewriting. */
  start: number
  end: number
}

/** Every Markdown page whose blocks are checked: the README, docs/ and examples/, as paths from the project root. */
export function markdownFiles(): string[] {
  const under = (dir: string) =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.md'))
          .map((f) => join(dir, f))
      : []
  return ['README.md', ...under('docs'), ...under('examples')].sort()
}

/** The fenced code blocks of a Markdown text (backtick or tilde fences, three or more). */
export function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = []
  const lines = text.split('\n')
  let offset = 0
  let open: { fence: string; line: number; language: string; marker: string; start: number } | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const lineEnd = offset + line.length + 1
    if (!open) {
      const m = /^(`{3,}|~{3,})\s*([\w+-]*)/.exec(line)
      if (m) open = { fence: m[1]!, line: i + 1, language: m[2]!.toLowerCase(), marker: (lines[i - 1] ?? '').trim(), start: lineEnd }
    } else if (line.startsWith(open.fence) && line.slice(open.fence.length).trim() === '' && line[open.fence.length] !== open.fence[0]) {
      blocks.push({ line: open.line, language: open.language, marker: open.marker, body: text.slice(open.start, offset), start: open.start, end: offset })
      open = undefined
    }
    offset = lineEnd
  }
  return blocks
}

/** The example file a block quotes, if its marker names one. */
export function quotedFile(block: Block): string | undefined {
  return EXAMPLE.exec(block.marker)?.[1]
}

function exampleText(path: string): string | undefined {
  if (!path.startsWith('examples/') || path.includes('..')) return undefined
  const file = join(ROOT, path)
  if (!existsSync(file)) return undefined
  const text = readFileSync(file, 'utf8')
  return text.endsWith('\n') ? text : `${text}\n`
}

/** What is wrong with a page's blocks, one line each (`file:line: problem`). */
export function blockProblems(file: string, text: string): string[] {
  const problems: string[] = []
  for (const block of fencedBlocks(text)) {
    const where = `${file}:${block.line}`
    const quoted = quotedFile(block)
    if (quoted !== undefined) {
      const expected = exampleText(quoted)
      if (expected === undefined) problems.push(`${where}: quotes ${quoted}, which is no file under examples/`)
      else if (block.body !== expected) problems.push(`${where}: differs from ${quoted} (run npm run docs:examples)`)
    } else if (RUNNABLE.has(block.language) && !NOT_RUNNABLE.test(block.marker)) {
      problems.push(`${where}: a ${block.language} block must quote a file of examples/ (<!-- example: examples/… -->) or say <!-- not runnable: why -->`)
    }
  }
  return problems
}

/** The page with every quoting block rewritten from its file (unknown files are left for blockProblems to name). */
export function syncBlocks(text: string): string {
  let result = ''
  let at = 0
  for (const block of fencedBlocks(text)) {
    const quoted = quotedFile(block)
    const expected = quoted === undefined ? undefined : exampleText(quoted)
    if (expected === undefined) continue
    result += text.slice(at, block.start) + expected
    at = block.end
  }
  return result + text.slice(at)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const problems: string[] = []
  for (const file of markdownFiles()) {
    const path = join(ROOT, file)
    const text = readFileSync(path, 'utf8')
    const synced = syncBlocks(text)
    if (!check && synced !== text) {
      writeFileSync(path, synced)
      console.log(`updated ${relative(ROOT, path)}`)
    }
    problems.push(...blockProblems(file, check ? text : synced))
  }
  for (const problem of problems) console.error(problem)
  if (problems.length) process.exit(1)
}
