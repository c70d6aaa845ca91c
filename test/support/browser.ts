// Headless Chromium for the browser tests: Debian's `chromium` package (never a browser downloaded by Playwright;
// playwright-core only drives it). Suites that need it are declared with describeWithBrowser, which runs them when
// Chromium is installed, skips them loudly when it is not, and under CI=true fails instead of skipping.
import { accessSync, constants, statSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { describe, it } from 'vitest'

const INSTALL_HINT = 'apt-get install -y --no-install-recommends chromium'

/**
 * The Chromium binary: Debian's /usr/bin/chromium. FINAPI_CHROMIUM_PATH overrides it, to use another Chromium build
 * or, set to a path that does not exist, to exercise the skip path (and the CI failure path) on a machine that has
 * Chromium. scripts/test.mjs honours the same variable.
 */
export const CHROMIUM_PATH: string = process.env.FINAPI_CHROMIUM_PATH || '/usr/bin/chromium'

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Whether CHROMIUM_PATH is an executable file. */
export const chromiumAvailable: boolean = isExecutableFile(CHROMIUM_PATH)

const ci = process.env.CI === 'true' || process.env.CI === '1'

/**
 * A vitest `describe` for a suite that needs Chromium. Without Chromium: under CI (CI=true or 1) the suite is a single
 * failing test; elsewhere it is `describe.skip` (its tests count as skipped) with a warning naming the suite.
 */
export function describeWithBrowser(name: string, fn: () => void): void {
  if (chromiumAvailable) {
    describe(name, fn)
    return
  }
  if (ci) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`Chromium is required under CI: apt-get install chromium (no executable at ${CHROMIUM_PATH}; ${INSTALL_HINT})`)
      })
    })
    return
  }
  const banner = '!'.repeat(78)
  console.warn(
    `\n${banner}\n!! BROWSER TESTS SKIPPED: "${name}" needs Chromium, and there is no executable at ${CHROMIUM_PATH}.\n` +
      `!! Install it with: ${INSTALL_HINT}\n${banner}\n`,
  )
  describe.skip(name, fn)
}

/** Starts headless Chromium; close it (browser.close()) when done. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Chromium's sandbox refuses to start as root ("Running as root without --no-sandbox is not supported"), and CI
    // runs the tests as root on a fresh machine. The browser only loads pages served by the app under test.
    args: ['--no-sandbox'],
  })
}
