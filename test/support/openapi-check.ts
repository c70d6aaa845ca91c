// Checking real answers against the OpenAPI document, as a strict third-party tool does: the operation the request
// reached, the answer's status (documented for it), its body (valid against the schema documented for that status
// and media type, decoded from its Content-Encoding) and its headers (every header of the document's family that
// it carries is documented for that answer; every header documented as required is there, with a valid value).
import { gunzipSync } from 'node:zlib'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { Agent, request } from 'undici'

// ajv-formats is CommonJS: its function is the module's default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void

export interface Header {
  required?: boolean
  schema?: Record<string, unknown>
}
export interface Media {
  schema?: Record<string, unknown>
  example?: unknown
}
export interface DocResponse {
  headers?: Record<string, Header>
  content?: Record<string, Media>
}
export interface Operation {
  operationId?: string
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, DocResponse>
}
export interface Document {
  paths: Record<string, Record<string, Operation>>
}

/** One request and its answer, the body kept as bytes. */
export interface Exchange {
  method: string
  /** Path and query, as sent. */
  url: string
  requestBody?: string
  requestType?: string
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export interface SendOptions {
  headers?: Record<string, string | undefined>
  /** Sent as JSON when not a string. */
  body?: unknown
  localAddress?: string
}

const agents = new Map<string, Agent>()
/** The dispatcher connecting from a local address, so the server sees another source (Linux routes all of 127/8 to lo). */
function from(localAddress: string | undefined): Agent | undefined {
  if (localAddress === undefined) return undefined
  let agent = agents.get(localAddress)
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })))
  return agent
}

/** A request through HTTP, its answer's body kept as bytes (undici decodes no Content-Encoding). */
export async function exchange(baseUrl: string, method: string, url: string, options: SendOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value
  const body = options.body === undefined || typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  if (body !== undefined && typeof options.body !== 'string') headers['content-type'] ??= 'application/json'
  const res = await request(baseUrl + url, { method: method as 'GET', headers, body, dispatcher: from(options.localAddress) })
  return { method, url, requestBody: body, requestType: headers['content-type'], status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) }
}

const isJson = (media: string) => media === 'application/json' || media.endsWith('+json')
export const mediaTypeOf = (contentType: string | string[] | undefined) => String(contentType ?? '').split(';')[0]!.trim().toLowerCase()

/** The answer's body as the representation it is: Content-Encoding undone (not in a part of one, a 206). */
export function decodedBody(x: Exchange): Buffer {
  return x.headers['content-encoding'] === 'gzip' && x.body.length && x.status !== 206 ? gunzipSync(x.body) : x.body
}

export class Conformance {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  readonly #compiled = new WeakMap<object, ValidateFunction>()
  /** Every header name the document documents on any answer, lower case: the headers it speaks of. */
  readonly family: Set<string>
  readonly operations: { method: string; path: string; op: Operation; pattern: RegExp; literals: number }[]
  readonly covered = new Set<string>()

  constructor(readonly doc: Document) {
    addFormats(this.ajv)
    this.operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        op,
        pattern: new RegExp(`^${path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
        literals: path.split('/').filter((s) => s && !s.startsWith('{')).length,
      })),
    )
    this.family = new Set(this.operations.flatMap((o) => Object.values(o.op.responses).flatMap((r) => Object.keys(r.headers ?? {}).map((h) => h.toLowerCase()))))
  }

  validator(schema: Record<string, unknown>): ValidateFunction {
    let v = this.#compiled.get(schema)
    if (!v) this.#compiled.set(schema, (v = this.ajv.compile(schema)))
    return v
  }

  /** The documented operation a request reached (the most literal path that matches). */
  operationOf(method: string, url: string) {
    const path = url.split('?')[0]!
    return this.operations.filter((o) => o.method === method && o.pattern.test(path)).sort((a, b) => b.literals - a.literals)[0]
  }

  /** What is wrong with an answer, in words; none when it conforms. Counts the operation as covered. */
  check(x: Exchange): string[] {
    const at = `${x.method} ${x.url} → ${x.status}`
    const found = this.operationOf(x.method, x.url)
    if (!found) return [`${at}: no documented operation`]
    this.covered.add(`${found.method} ${found.path}`)
    const response = found.op.responses[String(x.status)] ?? found.op.responses[`${String(x.status)[0]}XX`] ?? found.op.responses['default']
    if (!response) return [`${at}: status not documented (documented: ${Object.keys(found.op.responses).join(', ')})`]
    return [...this.#body(at, x, response), ...this.#headers(at, x, response)]
  }

  #body(at: string, x: Exchange, response: DocResponse): string[] {
    const media = mediaTypeOf(x.headers['content-type'])
    if (!response.content) return x.body.length ? [`${at}: a body (${media}) where none is documented`] : []
    const documented = response.content[media]
    if (!documented) return [`${at}: media type "${media}" not documented (documented: ${Object.keys(response.content).join(', ')})`]
    if (!documented.schema) return []
    // A 206 carries part of a representation (RFC 9110 15.3.7), never a whole document: its bytes are those Content-Range names.
    if (x.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/\d+$/.exec(String(x.headers['content-range']))
      return m && x.body.length === Number(m[2]) - Number(m[1]) + 1 ? [] : [`${at}: ${x.body.length} bytes sent for Content-Range ${String(x.headers['content-range'])}`]
    }
    let value: unknown = decodedBody(x).toString('utf8')
    if (isJson(media)) {
      try {
        value = JSON.parse(value as string)
      } catch {
        return [`${at}: ${media} body is not JSON: ${(value as string).slice(0, 80)}`]
      }
    }
    const validate = this.validator(documented.schema)
    return validate(value) ? [] : [`${at}: ${media} body does not match the schema: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })} (body ${JSON.stringify(value).slice(0, 200)})`]
  }

  #headers(at: string, x: Exchange, response: DocResponse): string[] {
    const problems: string[] = []
    const documented = new Map(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), h]))
    for (const name of Object.keys(x.headers)) {
      if (this.family.has(name) && !documented.has(name)) problems.push(`${at}: header ${name} sent but not documented for this answer`)
    }
    for (const [name, header] of documented) {
      const raw = x.headers[name]
      if (raw === undefined) {
        if (header.required) problems.push(`${at}: required header ${name} missing`)
        continue
      }
      const text = Array.isArray(raw) ? raw.join(', ') : raw
      const schema = header.schema ?? {}
      const value = schema['type'] === 'integer' || schema['type'] === 'number' ? Number(text) : text
      const validate = this.validator(schema)
      if (!validate(value)) problems.push(`${at}: header ${name}: ${JSON.stringify(text)} ${this.ajv.errorsText(validate.errors, { dataVar: name })}`)
    }
    return problems
  }

  /** The documented operations no request reached. */
  uncovered(): string[] {
    return this.operations.map((o) => `${o.method} ${o.path}`).filter((key) => !this.covered.has(key))
  }
}
