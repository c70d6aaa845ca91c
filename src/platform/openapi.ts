// The OpenAPI document is generated from the route schemas (which each family's gateway enriches with its own
// rules); each feature adds its paragraph of description and its security schemes. /openapi.json serves it and
// /docs renders it, with the features' docs scripts (the sandbox's request signer) when there are any.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DocsScript, FeatureOpenapi, SecurityScheme } from './feature.js'

export interface OpenapiOptions {
  version: string
  /** What each feature adds, in mounting order. */
  features: readonly FeatureOpenapi[]
}

export const openapiPlugin = fp(async (app: FastifyInstance, opts: OpenapiOptions) => {
  const description = opts.features.flatMap((f) => (f.description ? [f.description] : [])).join('\n\n')
  const securitySchemes = Object.assign({}, ...opts.features.map((f) => f.securitySchemes ?? {})) as Record<string, SecurityScheme>
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'finapi', version: opts.version, description },
      // The features' schemes are plain OpenAPI objects; the document's validity is checked by test/openapi.test.ts.
      components: { securitySchemes: securitySchemes as never },
    },
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
