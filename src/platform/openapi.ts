// The OpenAPI document is generated from the route schemas (which the gateway enriches with its own rules);
// /openapi.json serves it and /docs renders it.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

const DESCRIPTION = `Account-holder banking interface (\`/v2\`).

Every \`/v2\` request carries \`x-svc-key\` (the application key) and \`User-Agent\`, and the query parameter \`v=1\`.
Send \`X-CorrelationID\` (or \`x-svc-correlationid\`) to trace a call; the response echoes it as \`X-CorrelationID\`,
or a generated UUID when none was sent. Every body, errors included, carries \`status: {code, message}\`.

OAuth 2.0 authorization server (\`/oauth2/v3\`): the account holder signs in and allows a client at
\`/oauth2/v3/authorize\` (authorization code with PKCE S256); clients exchange codes, refresh tokens and get
client_credentials tokens at \`/oauth2/v3/token\`. An access token works as \`Authorization: <token>\` on \`/v2\`.`

export interface OpenapiOptions {
  version: string
  /** Security schemes features add (the OAuth server's), beside the gateway's own. */
  securitySchemes?: Record<string, object>
}

export const openapiPlugin = fp(async (app: FastifyInstance, opts: OpenapiOptions) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'finapi', version: opts.version, description: DESCRIPTION },
      components: {
        securitySchemes: {
          svcKey: { type: 'apiKey', in: 'header', name: 'x-svc-key', description: 'Application key' },
          authorization: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The token from POST /v2/auth (loginResponse.tokens[0].value), sent bare, without "Bearer "; or an OAuth access token',
          },
          ...opts.securitySchemes,
        },
      },
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
})
