// Reading form bodies, query strings and the one cookie the authorize pages use, without a framework plugin.
import type { App } from '../platform/http/app.js'

/** application/x-www-form-urlencoded (or a query string) as fields; a repeated field becomes a list. */
export function parseForm(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = fields[name]
    fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return fields
}

/** The query string of a request URL, parsed as parseForm does. */
export function parseQuery(url: string): Record<string, string | string[]> {
  const at = url.indexOf('?')
  return parseForm(at < 0 ? '' : url.slice(at + 1))
}

/** The value of one cookie in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** Only form bodies: a JSON token request or consent answer is refused, not guessed at. */
export function acceptFormsOnly(scope: App) {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(body as string)))
}
