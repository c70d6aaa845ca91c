// The OpenAPI document is generated from the route schemas (which each family's gateway enriches with its own
// rules); each feature adds its paragraph of description and its security schemes. /openapi.json serves it and
// /docs renders it. Once built, the document gets what holds for every operation: the X-CorrelationID every answer
// carries, Retry-After on 429 and 503, and the required flag of documented headers (documented-headers.ts).
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { FeatureOpenapi, SecurityScheme } from './feature.js'
import { liftRequiredHeaders } from './http/documented-headers.js'

export interface OpenapiOptions {
  version: string
  /** What each feature adds, in mounting order. */
  features: readonly FeatureOpenapi[]
  /** PUBLIC_URL: the document's server when configured; else `/`, the server the document was read from. */
  publicUrl?: string
}

interface Header {
  description: string
  required?: boolean
  schema: Record<string, unknown>
}
interface Media {
  schema?: unknown
}
interface Response {
  description: string
  headers?: Record<string, Header>
  content?: Record<string, Media>
}
interface Operation {
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

/** What holds for every operation, written into the built document. */
export function completeDocument(doc: Document): Document {
  for (const op of Object.values(doc.paths).flatMap((methods) => Object.values(methods))) {
    for (const [status, response] of Object.entries(op.responses)) {
      const headers = (response.headers ??= {})
      if (!has(headers, 'x-correlationid')) headers['X-CorrelationID'] = CORRELATION
      if ((status === '429' || status === '503') && !has(headers, 'retry-after')) headers['Retry-After'] = retryAfter(status === '429')
    }
    liftRequiredHeaders(Object.values(op.responses))
  }
  return doc
}

export const openapiPlugin = fp(async (app: FastifyInstance, opts: OpenapiOptions) => {
  const description = opts.features.flatMap((f) => (f.description ? [f.description] : [])).join('\n\n')
  const securitySchemes = Object.assign({}, ...opts.features.map((f) => f.securitySchemes ?? {})) as Record<string, SecurityScheme>
  // A relative server is the one the document was read from (OpenAPI 3.1, 4.8.5.1): right behind any proxy, and
  // for every address the server answers on; PUBLIC_URL, when configured, is the one address clients must use.
  const servers = [opts.publicUrl ? { url: opts.publicUrl, description: 'PUBLIC_URL' } : { url: '/', description: 'This server' }]
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'finapi', version: opts.version, description },
      servers,
      // The features' schemes are plain OpenAPI objects; the document's validity is checked by test/openapi.test.ts.
      components: { securitySchemes: securitySchemes as never },
    },
    transformObject: (built) => completeDocument(('openapiObject' in built ? built.openapiObject : built.swaggerObject) as unknown as Document) as never,
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
})
