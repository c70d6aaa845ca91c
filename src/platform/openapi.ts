// The OpenAPI document is generated from the route schemas (which each family's gateway enriches with its own
// rules); each feature adds its paragraph of description and its security schemes. /openapi.json serves it and
// /docs renders it, with the features' docs scripts (the sandbox's request signer) when there are any. Once built, the document gets what holds for every operation: the X-CorrelationID every answer
// carries, Retry-After on 429 and 503, the required flag of documented headers (documented-headers.ts), and the
// examples taken from real sandbox answers (docs/openapi-examples.json, written by `npm run docs:openapi-examples`).
import { existsSync, readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DocsScript, FeatureOpenapi, SecurityScheme } from './feature.js'
import { liftRequiredHeaders } from './http/documented-headers.js'

export interface OpenapiOptions {
  version: string
  /** What each feature adds, in mounting order. */
  features: readonly FeatureOpenapi[]
  /** PUBLIC_URL: the document's server when configured; else `/`, the server the document was read from. */
  publicUrl?: string
  /** The examples; docs/openapi-examples.json when not given. */
  examples?: OpenapiExamples
}

/** Real sandbox answers (and the requests that got them), by operationId, status and media type. */
export interface OperationExamples {
  request?: Record<string, unknown>
  responses: Record<string, Record<string, unknown>>
}
export type OpenapiExamples = Record<string, OperationExamples>

export const EXAMPLES_FILE = new URL('../../docs/openapi-examples.json', import.meta.url)

/** The examples file; none where it was not installed (the document is whole without them). */
function readExamples(): OpenapiExamples {
  return existsSync(EXAMPLES_FILE) ? (JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as OpenapiExamples) : {}
}

interface Header {
  description: string
  required?: boolean
  schema: Record<string, unknown>
}
interface Media {
  schema?: unknown
  example?: unknown
}
interface Response {
  description: string
  headers?: Record<string, Header>
  content?: Record<string, Media>
}
interface Operation {
  operationId?: string
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, Response>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
}

const CORRELATION: Header = {
  description: "The request's correlation id: the caller's X-CorrelationID (or X-SVC-CorrelationID) when it is a plain token of at most 128 characters, else a new UUID",
  required: true,
  schema: { type: 'string' },
}
const retryAfter = (required: boolean): Header => ({
  description: required ? 'Seconds to wait before trying again' : 'Seconds to wait before trying again, when the server knows (a throttle; not maintenance)',
  ...(required ? { required } : {}),
  schema: { type: 'string', pattern: '^[0-9]+$' },
})

const has = (headers: Record<string, Header>, name: string) => Object.keys(headers).some((n) => n.toLowerCase() === name.toLowerCase())

/** What holds for every operation, and the examples, written into the built document. */
export function completeDocument(doc: Document, examples: OpenapiExamples): Document {
  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      const headers = (response.headers ??= {})
      if (!has(headers, 'x-correlationid')) headers['X-CorrelationID'] = CORRELATION
      if ((status === '429' || status === '503') && !has(headers, 'retry-after')) headers['Retry-After'] = retryAfter(status === '429')
    }
    liftRequiredHeaders(Object.values(op.responses))
  }
  // An example goes where the document has its operation, status and media type; one that finds none (a feature not
  // mounted here, the sandbox's) is left out. test/openapi-conformance.test.ts checks that each one is placed.
  const byId = new Map(operations.flatMap((op) => (op.operationId ? [[op.operationId, op] as const] : [])))
  for (const [id, example] of Object.entries(examples)) {
    const op = byId.get(id)
    for (const [media, value] of Object.entries(example.request ?? {})) place(op?.requestBody?.content?.[media], value)
    for (const [status, byMedia] of Object.entries(example.responses)) {
      for (const [media, value] of Object.entries(byMedia)) place(op?.responses[status]?.content?.[media], value)
    }
  }
  return doc
}

function place(media: Media | undefined, value: unknown): void {
  if (media) media.example = value
}

export const openapiPlugin = fp(async (app: FastifyInstance, opts: OpenapiOptions) => {
  const description = opts.features.flatMap((f) => (f.description ? [f.description] : [])).join('\n\n')
  const securitySchemes = Object.assign({}, ...opts.features.map((f) => f.securitySchemes ?? {})) as Record<string, SecurityScheme>
  const examples = opts.examples ?? readExamples()
  // A relative server URL is relative to where the document is served (OpenAPI 3.1, the Server Object): right behind
  // any proxy and for every address the server answers on; PUBLIC_URL, when configured, is the address clients use.
  const servers = [opts.publicUrl ? { url: opts.publicUrl, description: 'PUBLIC_URL' } : { url: '/', description: 'This server' }]
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'finapi', version: opts.version, description },
      servers,
      // The features' schemes are plain OpenAPI objects; the document's validity is checked by test/openapi.test.ts.
      components: { securitySchemes: securitySchemes as never },
    },
    transformObject: (built) => completeDocument(('openapiObject' in built ? built.openapiObject : built.swaggerObject) as unknown as Document, examples) as never,
  })
  const scripts = opts.features.flatMap((f) => f.docsScripts ?? [])
  await app.register(swaggerUi, { routePrefix: '/docs', ...(scripts.length ? withScripts(scripts) : {}) })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
})

/**
 * Swagger UI's options for docs scripts: each served as a static file, and one request interceptor, written into
 * Swagger UI's initializer (itself a static file), that runs theirs. Without docs scripts the page is Swagger UI's own.
 */
function withScripts(scripts: readonly DocsScript[]) {
  return {
    theme: { js: scripts.map((s) => ({ filename: s.filename, content: s.content })) },
    uiConfig: {
      // Serialized with its source text, so it names nothing outside itself. Swagger UI awaits the result.
      requestInterceptor: async (request: unknown) => {
        const docs = (globalThis as { finapiDocs?: { requestInterceptors?: ((r: unknown) => unknown)[] } }).finapiDocs
        let current = request
        for (const intercept of docs?.requestInterceptors ?? []) current = (await intercept(current)) ?? current
        return current
      },
    },
  }
}
