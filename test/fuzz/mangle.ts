// Mangling, field by field: start from a valid request (a JSON body, a form, a query, a header list) and break one
// member at a time: drop it, give it a wrong type, a huge or unicode or control-character string, an XSS or
// open-redirect payload, repeat it; and whole-body damage (truncated JSON, deep nesting, big arrays, wrong types).
import fc from 'fast-check'

const XSS = ['<script>alert(1)</script>', '"><svg onload=alert(1)>', "'><img src=x onerror=alert(1)>", 'javascript:alert(1)']
const REDIRECTS = [
  'https://evil.example/cb', '//evil.example/cb', 'http://127.0.0.1.evil.example/cb', 'http://localhost@evil.example/cb',
  'http://127.0.0.1:8123/callback#x', 'http://127.0.0.1:8123/callback?next=https://evil.example', 'HTTP://127.0.0.1:8123/callback',
  'http://127.0.0.1%2F@evil.example/', 'http:/\\evil.example', 'http://[::1]:8123/callback', 'http://evil.example\\@127.0.0.1/',
  'com.evil.app:/oauth', 'data:text/html,<script>alert(1)</script>', 'http://0x7f000001/cb', 'http://127.1/cb',
]
const ODD = [
  '', ' ', '0', '-1', '1e309', '9007199254740993', 'null', 'true', '[]', '{}', "' OR 1=1--", '../../etc/passwd', '%00', '%zz',
  '\u0000', '\u0007bell', 'tab\there', '\u202eevil', '😀', '\ud800', 'é', '日本語', 'Ω≈ç√', '\ufeffbom', '__proto__', 'constructor',
  'softcredential', 'touch', 'usernamePassword', 'token', 'partyIdentifiers', 'S256', 'plain', 'code', 'allow', 'deny',
  'accounts', 'reporting', 'accounts reporting', 'domestic', 'cards', 'packages', 'USD', 'AUD', 'XXX', 'nab', 'NAB', '1', '2',
]

export const payloads = { XSS, REDIRECTS, ODD }

const long = fc.constantFrom(129, 300, 2049, 5_000, 20_000).chain((n) => fc.constantFrom('a', 'é', '0', '<').map((ch) => ch.repeat(n)))

/** A string that is wrong somewhere: odd, injected, huge, or random unicode. */
export const junkString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD) },
  { weight: 2, arbitrary: fc.constantFrom(...XSS, ...REDIRECTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: long },
)

function nested(depth: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v }
  return v
}

/** Any JSON value of a wrong kind for most members. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: junkString },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(0, -1, 1.5, 1e308, true, false, null, [], {}, [''], { '': '' }) },
  { weight: 1, arbitrary: fc.constantFrom(10, 200, 800).map(nested) },
  { weight: 1, arbitrary: fc.constantFrom(1_000, 20_000).map((n) => Array.from({ length: n }, (_, i) => i)) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
)

type Path = (string | number)[]

/** Every member path of a JSON value (objects and arrays, leaves included), outermost first. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return []
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  return entries.flatMap(([k, v]) => [[...prefix, k], ...pathsOf(v, [...prefix, k])])
}

function setAt(value: unknown, path: Path, op: { drop: true } | { set: unknown }): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if ('drop' in op) delete node[last]
  else node[last] = op.set
  return copy
}

/** One member of a JSON body broken (dropped, or replaced with junk), or a junk member added beside it. */
export function mangleJson(valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid)
  // An empty body ({}): a junk member is all there is to break.
  if (paths.length === 0) return fc.tuple(junkString, junkValue).map(([k, v]) => ({ [k === '' ? 'x' : k]: v }))
  return fc.oneof(
    fc.constantFrom(...paths).map((p) => setAt(valid, p, { drop: true })),
    fc.tuple(fc.constantFrom(...paths), junkValue).map(([p, v]) => setAt(valid, p, { set: v })),
    fc.tuple(fc.constantFrom(...paths), junkString, junkValue).map(([p, k, v]) => {
      const parent = p.slice(0, -1)
      return setAt(valid, [...parent, k === '' ? 'x' : k], { set: v })
    }),
  )
}

/** Whole-body damage to a JSON text. */
export function mangleJsonText(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
    fc.constantFrom('', 'null', '[]', '"x"', '0', text + text, text + ',', `[${text}]`, `\ufeff${text}`, text.replace('{', '{"__proto__":{"x":1},')),
    // A repeated member: the first copy empty, the second the valid one.
    fc.constant(text.replace(/^\{"(\w+)":/, '{"$1":{},"$1":')),
    fc.tuple(fc.integer({ min: 0, max: text.length }), junkString).map(([n, s]) => text.slice(0, n) + s + text.slice(n)),
    fc.constantFrom(2_000, 10_000).map((n) => '['.repeat(n) + ']'.repeat(n)),
  )
}

export const contentTypes = fc.constantFrom(
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=utf-16', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '', 'application/json, text/plain', 'application/jsonx',
)

export type Header = [string, string]

/** A header value safe to put on one line (CR and LF would split the request; raw cases do that on purpose). */
const oneLine = (s: string) => s.replace(/[\r\n]/g, '')

/** One header broken: dropped, repeated, oversized, emptied, junk, or a junk header added. */
export function mangleHeaders(valid: Header[]): fc.Arbitrary<Header[]> {
  const index = fc.nat({ max: Math.max(0, valid.length - 1) })
  const extra = fc.tuple(
    fc.constantFrom('cookie', 'x-correlationid', 'x-svc-correlationid', 'authorization', 'x-svc-key', 'user-agent', 'x-forwarded-for', 'expect', 'transfer-encoding', 'accept', 'origin', 'referer', 'x-http-method-override', 'v-c-client-correlation-id'),
    junkString,
  )
  return fc.oneof(
    index.map((i) => valid.filter((_, j) => j !== i)),
    index.map((i) => [...valid, valid[i]!]),
    fc.tuple(index, junkString).map(([i, v]) => [...valid, [valid[i]![0], oneLine(v)] as Header]),
    fc.tuple(index, junkString).map(([i, v]) => valid.map((h, j) => (j === i ? ([h[0], oneLine(v)] as Header) : h))),
    fc.tuple(index, fc.constantFrom(4_000, 9_000, 17_000)).map(([i, n]) => valid.map((h, j) => (j === i ? ([h[0], 'k'.repeat(n)] as Header) : h))),
    extra.map(([name, v]) => [...valid, [name, oneLine(v)] as Header]),
  )
}

export type Param = [string, string]

/** The query string of params, each percent-encoded (a `raw` value is put in as it is). */
export function queryString(params: Param[]): string {
  return params.map(([k, v]) => `${encode(k)}=${v.startsWith('\0raw:') ? v.slice(5) : encode(v)}`).join('&')
}

/** encodeURIComponent, with lone surrogates (which it refuses) replaced as UTF-8 encoding replaces them. */
export const encode = (s: string) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'))

/** One query parameter broken: dropped, repeated, junk (encoded or raw percent junk), or a junk one added. */
export function mangleParams(valid: Param[]): fc.Arbitrary<Param[]> {
  const rawJunk = fc.constantFrom('%zz', '%', '%00', '%C3%28', '%E2%82', 'a+b', '%2F..%2F', '[]', '%0d%0aSet-Cookie:x=1').map((v) => `\0raw:${v}`)
  if (valid.length === 0) return fc.tuple(junkString, junkString).map(([k, v]) => [[k, v]])
  const index = fc.nat({ max: valid.length - 1 })
  return fc.oneof(
    index.map((i) => valid.filter((_, j) => j !== i)),
    index.map((i) => [...valid, valid[i]!]),
    fc.tuple(index, fc.oneof(junkString, rawJunk)).map(([i, v]) => valid.map((p, j) => (j === i ? ([p[0], v] as Param) : p))),
    fc.tuple(index, junkString).map(([i, v]) => [...valid, [valid[i]![0], v] as Param]),
    fc.tuple(fc.oneof(junkString, fc.constantFrom('v[]', 'v[x]', '__proto__', 'constructor[prototype]')), junkString).map(([k, v]) => [...valid, [k, v] as Param]),
  )
}
