// POST /oauth2/v3/revoke (RFC 7009): a client ends the grant of one of its own tokens.
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { ENDPOINT_ERRORS, ENDPOINT_SCHEMA, endpointScope, nameClientAsCaller } from '../endpoint.js'
import { RevokeRequest } from './schemas.js'
import type { RevocationService } from './service.js'

export async function revokeRoutes(app: App, deps: { revocation: RevocationService }): Promise<void> {
  await app.register(async (scope: App) => {
    endpointScope(scope)

    scope.post(
      '/oauth2/v3/revoke',
      {
        schema: {
          ...ENDPOINT_SCHEMA,
          operationId: 'revokeToken',
          summary: 'Revoke an access or refresh token (RFC 7009): its whole grant ends, refresh family and access tokens',
          description:
            'Client authentication as at the token endpoint. Answers 200 with an empty body for every token: revoked, already ' +
            'invalid, unknown, or issued to another client (which is left alone). token_type_hint is accepted and not needed.',
          body: RevokeRequest,
          response: { 200: Type.Null({ description: 'Revoked, or nothing to revoke (an empty body)' }), ...ENDPOINT_ERRORS },
        },
      },
      async (request, reply) => {
        await deps.revocation.revoke(request.body, request.headers.authorization, request.ip, nameClientAsCaller(request))
        return reply.code(200).send(undefined as never)
      },
    )
  })
}
