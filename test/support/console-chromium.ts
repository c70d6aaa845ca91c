// The console in headless Chromium, as its browser tests drive it: one page at desktop size, signing in through the
// form as a person does, and axe-core's serious and critical findings on the pages a test opened, at each size.
import type { Browser, Page } from 'playwright-core'
import { axeViolations } from './axe.js'
import { launchChromium } from './browser.js'

/** The sizes every console page is checked at. */
export const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 740 } }

/** Chromium with one page at desktop size. */
export async function consolePage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium()
  return { browser, page: await (await browser.newContext({ viewport: SIZES.desktop })).newPage() }
}

/** Signs in through the sign-in form and waits for the home page. */
export async function signInThroughForm(page: Page, baseUrl: string, username = 'testrest', password = 'Testrest-1'): Promise<void> {
  await page.goto(baseUrl + '/console/sign-in')
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${baseUrl}/console`)
}

/** The serious and critical findings on the page as it is now, each as `<where>: <finding>`. */
export async function axeProblems(page: Page, where: string): Promise<string[]> {
  return (await axeViolations(page, undefined, ['serious', 'critical'])).map((v) => `${where}: ${v}`)
}

/** Opens each path in turn and gives axe's findings on it, each as `<size> <path>: <finding>`. */
export async function axeProblemsOn(page: Page, baseUrl: string, size: string, paths: Iterable<string>): Promise<string[]> {
  const problems: string[] = []
  for (const path of paths) {
    await page.goto(baseUrl + path)
    problems.push(...(await axeProblems(page, `${size} ${path}`)))
  }
  return problems
}
