// Where a worker thread's script is. A thread cannot load TypeScript: on Node 20 neither `--import tsx` nor tsx's API
// reaches a thread's module loader, so a thread always runs compiled JavaScript.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'

/**
 * The script `name`.js for a thread whose module lives in the folder `sources`: beside it when the process runs from
 * the build, or the build's (the same path under `dist/` instead of `src/`) when it runs from the sources (the tests
 * build first; `npm run dev` uses it once `npm run build` made it), unless one of `modules` (the script's own imports
 * of that folder, itself included) changed since it was built: a stale thread could read or write another shape than
 * the database's (after a pull that changed them, say). Undefined with no build or a stale one; the caller then does
 * the thread's work on its own thread.
 *
 * Changed means a source newer than its script and not the text the build compiled: the build is incremental, and tsc
 * leaves a script as it was when its source was touched but its text is the same (a branch switched and back, a
 * stash applied), so a build would never make such a script newer. The build's record (dist/.tsbuildinfo) holds each
 * source's SHA-256; it is read only when a source is newer than its script.
 */
export function builtScript(sources: URL, name: string, modules: readonly string[]): URL | undefined {
  const beside = new URL(`${name}.js`, sources)
  if (existsSync(beside)) return beside
  const at = sources.pathname.lastIndexOf('/src/')
  if (at < 0) return undefined
  const built = new URL(`${sources.pathname.slice(0, at)}/dist/${sources.pathname.slice(at + '/src/'.length)}`, sources)
  let compiled: Map<string, string> | undefined
  const fresh = modules.every((module) => {
    const js = new URL(`${module}.js`, built)
    const ts = new URL(`${module}.ts`, sources)
    if (!existsSync(js) || !existsSync(ts)) return false
    if (statSync(js).mtimeMs >= statSync(ts).mtimeMs) return true
    compiled ??= compiledTexts(new URL(`${sources.pathname.slice(0, at)}/dist/.tsbuildinfo`, sources))
    return compiled.get(ts.pathname) === createHash('sha256').update(readFileSync(ts, 'utf8')).digest('hex')
  })
  return fresh ? new URL(`${name}.js`, built) : undefined
}

/**
 * The SHA-256 of each source's text as the last build compiled it, by the source's path: tsc's incremental record
 * (`fileNames`, relative to the record, and `fileInfos`, each a `version` that is the text's SHA-256 in TypeScript 5).
 * Empty when it is missing or not of that shape: every source newer than its script is then taken as changed.
 */
function compiledTexts(record: URL): Map<string, string> {
  const texts = new Map<string, string>()
  try {
    const info = JSON.parse(readFileSync(record, 'utf8')) as { fileNames?: unknown; fileInfos?: unknown }
    if (!Array.isArray(info.fileNames) || !Array.isArray(info.fileInfos)) return texts
    info.fileNames.forEach((name: unknown, i) => {
      const entry: unknown = (info.fileInfos as unknown[])[i]
      const version = typeof entry === 'string' ? entry : (entry as { version?: unknown } | undefined)?.version
      if (typeof name === 'string' && typeof version === 'string') texts.set(new URL(name, record).pathname, version)
    })
  } catch {
    // No record, or not JSON: as if it recorded nothing.
  }
  return texts
}
