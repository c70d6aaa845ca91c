// Accessibility checks in the browser tests: axe-core (the engine behind most accessibility tools) run inside a
// page that Chromium rendered; a test expects no violations.
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source

/** Each violation as `rule: what is wrong (how many nodes)`. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol rather than a script tag, which a strict
  // Content-Security-Policy (the consent pages allow no script at all) would block.
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; help: string; nodes: unknown[] }[] }> } }).axe
    return (await axe.run()).violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length }))
  })
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes})`)
}
