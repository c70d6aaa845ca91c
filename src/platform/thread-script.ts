// Where a worker thread's script is. A thread cannot load TypeScript: on Node 20 neither `--import tsx` nor tsx's API
// reaches a thread's module loader, so a thread always runs compiled JavaScript.
import { existsSync, statSync } from 'node:fs'

/**
 * The script `name`.js for a thread whose module lives in the folder `sources`: beside it when the process runs from
 * the build, or the build's (the same path under `dist/` instead of `src/`) when it runs from the sources (the tests
 * build first; `npm run dev` uses it once `npm run build` made it), unless one of `modules` (the script's own imports
 * of that folder, itself included) changed since it was built: a stale thread could read or write another shape than
 * the database's (after a pull that changed them, say). Undefined with no build or a stale one; the caller then does
 * the thread's work on its own thread.
 */
export function builtScript(sources: URL, name: string, modules: readonly string[]): URL | undefined {
  const beside = new URL(`${name}.js`, sources)
  if (existsSync(beside)) return beside
  const at = sources.pathname.lastIndexOf('/src/')
  if (at < 0) return undefined
  const built = new URL(`${sources.pathname.slice(0, at)}/dist/${sources.pathname.slice(at + '/src/'.length)}`, sources)
  const fresh = modules.every((module) => {
    const js = new URL(`${module}.js`, built)
    const ts = new URL(`${module}.ts`, sources)
    return existsSync(js) && existsSync(ts) && statSync(js).mtimeMs >= statSync(ts).mtimeMs
  })
  return fresh ? new URL(`${name}.js`, built) : undefined
}
