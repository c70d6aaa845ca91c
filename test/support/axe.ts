// Accessibility checks in the browser tests: axe-core (the engine behind most accessibility tools) run inside a
// page that Chromium rendered; a test expects no violations.
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source

/**
 * Each violation as `rule: what is wrong (how many nodes)`; only in the elements `include` selects, when given, and
 * only of the impacts named, when given (['serious', 'critical']).
 */
export async function axeViolations(page: Page, include?: string, impacts?: readonly string[]): Promise<string[]> {
  // Evaluated through the browser's debugging protocol rather than a script tag, which a strict
  // Content-Security-Policy (the consent pages allow no script at all) would block.
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async (include) => {
    const axe = (globalThis as unknown as { axe: { run(context?: unknown): Promise<{ violations: { id: string; help: string; impact?: string; nodes: unknown[] }[] }> } }).axe
    const results = await (include === undefined ? axe.run() : axe.run({ include: [include] }))
    return results.violations.map((v) => ({ id: v.id, help: v.help, impact: v.impact ?? '', nodes: v.nodes.length }))
  }, include)
  return violations.filter((v) => !impacts || impacts.includes(v.impact)).map((v) => `${v.id}: ${v.help} (${v.nodes})`)
}
