// A valid request as a template (method, path, query, headers, a JSON or form body), and the arbitrary of its
// mangled variants: the valid request itself, then one part broken at a time: a body member, the body text, the
// content type, a header, a query parameter, the path, the method.
import fc from 'fast-check'
import { contentTypes, encode, junkString, mangleHeaders, mangleJson, mangleJsonText, mangleParams, queryString, type Header, type Param } from './mangle.js'
import type { FuzzCase } from './wire.js'

export interface Template {
  note: string
  method: string
  path: string
  params: Param[]
  headers: Header[]
  /** A JSON body, or form fields. */
  body?: { json: unknown } | { form: Param[] }
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get']

/** The template as a case, with some of its parts replaced. */
export function build(t: Template, note: string, parts: Partial<{ method: string; path: string; params: Param[]; headers: Header[]; body: string | undefined }>): FuzzCase {
  const params = parts.params ?? t.params
  const query = params.length ? `?${queryString(params)}` : ''
  const body = 'body' in parts ? parts.body : bodyText(t)
  const contentType = t.body === undefined ? [] : [['Content-Type', 'json' in t.body ? 'application/json' : 'application/x-www-form-urlencoded'] as Header]
  const headers = parts.headers ?? [...t.headers, ...contentType]
  return { type: 'http', note: `${t.note}: ${note}`, method: parts.method ?? t.method, target: `${parts.path ?? t.path}${query}`, headers, body }
}

function bodyText(t: Template): string | undefined {
  if (t.body === undefined) return undefined
  return 'json' in t.body ? JSON.stringify(t.body.json) : queryString(t.body.form)
}

/** Path damage that keeps the request line parseable (raw cases send the unparseable ones). */
function manglePath(path: string): fc.Arbitrary<string> {
  const segments = path.split('/')
  return fc.oneof(
    fc.constantFrom(`${path}/`, `${path}//`, path.toUpperCase(), `${path};x=1`, `${path}%2f`, `${path}/..`, `/x/..${path}`, `${path}#frag`, `${path}%00`, path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)),
    fc.tuple(fc.nat({ max: segments.length - 1 }), junkString).map(([i, v]) => segments.map((s, j) => (j === i && j > 0 ? encode(v) : s)).join('/')),
    junkString.map((v) => `${path}/${encode(v)}`),
  )
}

/** The valid request and its variants, each broken in one place. */
export function variants(t: Template): fc.Arbitrary<FuzzCase> {
  const contentType = (headers: Header[], type: string | undefined): Header[] => [...headers.filter(([n]) => n.toLowerCase() !== 'content-type'), ...(type === undefined ? [] : [['Content-Type', type] as Header])]
  const kinds: fc.Arbitrary<FuzzCase>[] = [
    fc.constant(build(t, 'as is', {})),
    mangleHeaders([...t.headers, ...(t.body ? [['Content-Type', 'json' in t.body ? 'application/json' : 'application/x-www-form-urlencoded'] as Header] : [])]).map((headers) => build(t, 'headers', { headers })),
    mangleParams(t.params).map((params) => build(t, 'query', { params })),
    manglePath(t.path).map((path) => build(t, 'path', { path })),
    fc.constantFrom(...METHODS).map((method) => build(t, `method ${method}`, { method })),
  ]
  const body = t.body
  if (body && 'json' in body) {
    const text = JSON.stringify(body.json)
    kinds.push(
      mangleJson(body.json).map((v) => build(t, 'body member', { body: JSON.stringify(v) ?? 'undefined' })),
      mangleJson(body.json).map((v) => build(t, 'body member', { body: JSON.stringify(v) ?? 'undefined' })),
      mangleJsonText(text).map((b) => build(t, 'body text', { body: b })),
      fc.option(contentTypes, { nil: undefined }).map((type) => build(t, `content-type ${type}`, { headers: contentType(t.headers, type) })),
      fc.constantFrom(70_000, 1_000_000).map((n) => build(t, `body of ${n} bytes`, { body: JSON.stringify({ pad: 'p'.repeat(n), ...(body.json as object) }) })),
    )
  } else if (body && 'form' in body) {
    kinds.push(
      mangleParams(body.form).map((form) => build(t, 'form field', { body: queryString(form) })),
      mangleParams(body.form).map((form) => build(t, 'form field', { body: queryString(form) })),
      fc.option(contentTypes, { nil: undefined }).map((type) => build(t, `content-type ${type}`, { headers: contentType(t.headers, type) })),
      fc.constantFrom('', '&&&', '=', 'a=%zz', JSON.stringify(Object.fromEntries(body.form))).map((b) => build(t, 'form text', { body: b })),
      fc.constantFrom(70_000, 1_000_000).map((n) => build(t, `body of ${n} bytes`, { body: `${queryString(body.form)}&pad=${'p'.repeat(n)}` })),
    )
  }
  return fc.oneof(...kinds)
}
