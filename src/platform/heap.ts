// One full garbage collection on demand, for the server's own use after bulk work at start-up.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let gc: (() => void) | undefined

/**
 * Collects the whole heap now (a few tens of milliseconds). Node exposes V8's collector only to a context made after
 * `--expose-gc` is set, so the flag is set and one context made, once; the process's own global scope gets no `gc`.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  gc()
}
