// POST /oauth2/v3/par (RFC 9126): a client pushes an authorization request and gets a single-use request_uri.
import type { App } from '../../platform/http/app.js'
import { requestUrlOf } from '../../platform/http/public-url.js'
import { ENDPOINT_ERRORS, ENDPOINT_SCHEMA, JSON_TYPE, endpointScope, nameClientAsCaller } from '../endpoint.js'
import { ParHeaders, ParRequest, ParResponse } from './schemas.js'
import type { ParService } from './service.js'

export async function parRoutes(app: App, deps: { par: ParService; publicUrl: string | undefined }): Promise<void> {
  await app.register(async (scope: App) => {
    endpointScope(scope)

    scope.post(
      '/oauth2/v3/par',
      {
        schema: {
          ...ENDPOINT_SCHEMA,
          operationId: 'pushAuthorizationRequest',
          summary: 'Push an authorization request (RFC 9126) and get a single-use request_uri for the authorize endpoint',
          description:
            'The authorization request\'s parameters, checked as the authorize endpoint checks them, with client authentication. ' +
            'A DPoP header (a proof for POST and this URL) or dpop_jkt binds the authorization code to that key (RFC 9449 10): ' +
            'it is then exchanged only with a proof by the same key. A proof and a dpop_jkt naming different keys, or a bad proof, is invalid_dpop_proof.',
          headers: ParHeaders,
          body: ParRequest,
          response: { 201: ParResponse, ...ENDPOINT_ERRORS },
        },
      },
      async (request, reply) => {
        const context = { source: request.ip, url: requestUrlOf(request, deps.publicUrl), dpop: request.headers['dpop'], authenticated: nameClientAsCaller(request) }
        return reply.code(201).type(JSON_TYPE).send(await deps.par.push(request.body, request.headers.authorization, context))
      },
    )
  })
}
