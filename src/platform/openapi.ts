// The OpenAPI document is generated from the route schemas (which each family's gateway enriches with its own
// rules); each feature adds its paragraph of description and its security schemes. /openapi.json serves it and
// /docs renders it.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { FeatureOpenapi, SecurityScheme } from './feature.js'

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
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
})
