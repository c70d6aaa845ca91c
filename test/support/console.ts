// The merchant console through HTTP, as a browser without JavaScript uses it: a cookie jar of one session, form
// posts with the page's CSRF token, redirects not followed (tests look at them).
import { request } from 'undici'
import type { TestApp } from './harness.js'

export interface ConsoleResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export class ConsoleBrowser {
  readonly cookies = new Map<string, string>()
  constructor(readonly t: TestApp) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  private remember(setCookie: string | string[] | undefined) {
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  async send(method: string, path: string, form?: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<ConsoleResponse> {
    const body = form ? new URLSearchParams(Object.entries(form).flatMap(([k, v]) => [v].flat().map((x) => [k, x]))).toString() : undefined
    const res = await request(this.t.baseUrl + path, {
      method,
      headers: { ...(this.cookies.size ? { cookie: this.cookieHeader } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      body,
    })
    this.remember(res.headers['set-cookie'])
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
  }

  get(path: string) {
    return this.send('GET', path)
  }

  post(path: string, form: Record<string, string | string[]>) {
    return this.send('POST', path, form)
  }

  /** Opens `path` and posts `form` with the page's CSRF token. */
  async submit(path: string, action: string, form: Record<string, string | string[]>) {
    const page = await this.get(path)
    return this.post(action, { csrf_token: csrfOf(page.text), ...form })
  }

  async signIn(username = 'testrest', password = 'Testrest-1'): Promise<ConsoleResponse> {
    return this.submit('/console/sign-in', '/console/sign-in', { username, password })
  }
}

export function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html)
  if (!match) throw new Error('no CSRF token on the page')
  return match[1]!
}
