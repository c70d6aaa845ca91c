// POST /oauth2/v3/introspect (RFC 7662): a confidential client describes one of its own tokens.
import type { App } from '../../platform/http/app.js'
import { ENDPOINT_ERRORS, ENDPOINT_SCHEMA, JSON_TYPE, endpointScope, nameClientAsCaller } from '../endpoint.js'
import { IntrospectRequest, IntrospectResponse } from './schemas.js'
import type { IntrospectionService } from './service.js'

export async function introspectRoutes(app: App, deps: { introspection: IntrospectionService }): Promise<void> {
  await app.register(async (scope: App) => {
    endpointScope(scope)

    scope.post(
      '/oauth2/v3/introspect',
      {
        schema: {
          ...ENDPOINT_SCHEMA,
          operationId: 'introspectToken',
          summary: "Describe one of the calling client's tokens (RFC 7662); confidential clients only",
          description: 'Any token that is unknown, expired, revoked, spent or issued to another client is {"active": false}.',
          body: IntrospectRequest,
          response: { 200: IntrospectResponse, ...ENDPOINT_ERRORS },
        },
      },
      async (request, reply) => reply.type(JSON_TYPE).send(await deps.introspection.introspect(request.body, request.headers.authorization, request.ip, nameClientAsCaller(request))),
    )
  })
}
