// The OpenAPI document's examples, taken from the success tour's real answers (and the requests that got them):
// the first answer of each operation, status and media type. What differs from run to run (ids, tokens, secrets,
// the pages' signed values) is replaced by stand-ins of the same shape, numbered in order of appearance, so the
// same tour always writes the same file; long lists and texts are cut, so the document stays readable.
import { readFileSync, writeFileSync } from 'node:fs'
import type { OpenapiExamples } from '../../src/platform/openapi.js'
import { EXAMPLES_FILE } from '../../src/platform/openapi.js'
import { decodedBody, mediaTypeOf, type Exchange } from './openapi-check.js'
import type { Tour } from './openapi-tour.js'

export { EXAMPLES_FILE }

/** Items kept of a list, characters of a text (cut at a line's end). */
const MAX_ITEMS = 3
const MAX_CHARS = 4000

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b/g
const IS_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Members whose values are made anew on every run: random tokens, secrets, keys, signed or hashed values. */
const VOLATILE = new Set(['access_token', 'refresh_token', 'request_uri', 'token', 'value', 'key', 'keyId', 'accountToken', 'csrf_token', 'code', 'code_challenge', 'code_verifier', 'pub'])
/** Members measured on the machine that ran the tour: one fixed value each. */
const MEASURED: Record<string, unknown> = { durationMs: 3, worker: 'vm:4242:00c0ffee' }
/** Where the examples' server is: the default PORT on this machine. */
export const EXAMPLE_BASE_URL = 'http://localhost:3000'

export class Stabilizer {
  readonly #seen = new Map<string, string>()
  /** The tour's server, whose port changes from run to run. */
  constructor(readonly baseUrl: string) {}

  /** The stand-in of a volatile value: the same value always gets the same one. */
  standIn(value: string, kind: 'uuid' | 'token'): string {
    let known = this.#seen.get(value)
    if (known === undefined) {
      const n = String(this.#seen.size + 1)
      known = kind === 'uuid' ? `00000000-0000-4000-8000-${n.padStart(12, '0')}` : `example-${kind}-${n}`
      this.#seen.set(value, known)
    }
    return known
  }

  text(value: string): string {
    return value.replaceAll(this.baseUrl, EXAMPLE_BASE_URL).replace(UUID, (id) => this.standIn(id, 'uuid'))
  }

  json(value: unknown, member?: string): unknown {
    if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => this.json(item, member))
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.json(v, k)]))
    if (member !== undefined && member in MEASURED) return MEASURED[member]
    if (typeof value !== 'string') return value
    if (member !== undefined && VOLATILE.has(member) && !IS_UUID.test(value)) return this.tokens(value)
    return this.text(value)
  }

  /** The random runs of a value (a token, the random end of a request_uri) replaced; short codes (API-200) kept. */
  tokens(value: string): string {
    return value.replace(/[A-Za-z0-9_\-+/=.~]{16,}/g, (run) => this.standIn(run, 'token'))
  }

  /**
   * A text body: the pages' hidden values (signed requests, CSRF values) replaced; cut at its first blank line (the
   * metrics' request counts, before the latencies measured on this machine) and at MAX_CHARS.
   */
  page(value: string): string {
    const hidden = value.replace(/(<input type="hidden" name="[^"]+" value=")([^"]*)(")/g, (_m, a: string, v: string, b: string) => `${a}${this.tokens(v)}${b}`)
    const text = this.text(hidden)
    const blank = text.indexOf('\n\n')
    let cut = blank >= 0 ? text.slice(0, blank + 1) : text
    if (cut.length > MAX_CHARS) cut = `${cut.slice(0, cut.lastIndexOf('\n', MAX_CHARS) + 1)}…`
    return cut === text ? text : cut.endsWith('…') ? cut : `${cut}…`
  }
}

const isJson = (media: string) => media === 'application/json' || media.endsWith('+json')

function bodyOf(s: Stabilizer, media: string, body: string): unknown {
  if (isJson(media)) return s.json(JSON.parse(body))
  if (media === 'application/x-www-form-urlencoded') return s.json(Object.fromEntries(new URLSearchParams(body)))
  return s.page(body)
}

/** The examples of the tour's recorded answers: those of 1xx–3xx statuses with a body, and the requests that got them. */
export function examplesOf(tour: Tour): OpenapiExamples {
  const s = new Stabilizer(tour.t.baseUrl)
  const examples: OpenapiExamples = {}
  for (const x of tour.exchanges.filter((e) => e.recorded && e.status < 400)) {
    const op = tour.check.operationOf(x.method, x.url)?.op
    if (!op?.operationId) continue
    const example = (examples[op.operationId] ??= { responses: {} })
    const media = mediaTypeOf(x.headers['content-type'])
    const requestType = mediaTypeOf(x.requestType)
    if (x.requestBody && op.requestBody?.content[requestType] && example.request === undefined) example.request = { [requestType]: bodyOf(s, requestType, x.requestBody) }
    if (!hasBody(x)) continue
    const byMedia = (example.responses[String(x.status)] ??= {})
    byMedia[media] ??= bodyOf(s, media, decodedBody(x).toString('utf8'))
  }
  return Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)))
}

// A 206 is a byte range, no example of its media type.
const hasBody = (x: Exchange) => x.body.length > 0 && x.status !== 206

export const readExamples = (): OpenapiExamples => JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as OpenapiExamples
export const writeExamples = (examples: OpenapiExamples) => writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`)
