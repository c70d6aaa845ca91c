// What the client-authenticated endpoints beside the token endpoint share (revocation RFC 7009, introspection
// RFC 7662, pushed authorization requests RFC 9126): each route's scope reads forms only, answers no-store, and
// fails in RFC 6749's shape at the RFCs' own statuses; client authentication is in the body or HTTP Basic.
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../platform/http/app.js'
import { setCaller } from '../platform/http/caller.js'
import { documentHeaders, type HeaderRules } from '../platform/http/documented-headers.js'
import { useErrorFamily } from '../platform/http/error-family.js'
import { ENDPOINT_ERROR_CODES, oauthEndpointErrors } from './errors.js'
import type { OAuthClient } from './clients/service.js'
import { acceptFormsOnly } from './form.js'

const FORM = 'application/x-www-form-urlencoded'
export const JSON_TYPE = 'application/json;charset=UTF-8'
const security: { [name: string]: string[] }[] = [{ clientBasic: [] }, {}]
/** The schema members every endpoint route shares. */
export const ENDPOINT_SCHEMA = { tags: ['oauth'], consumes: [FORM], security }

export const Field = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }))
export const ClientFields = {
  client_id: Field('the client; with client_secret for a confidential client, unless sent with HTTP Basic'),
  client_secret: Field("a confidential client's secret (client_secret_post); or send HTTP Basic (client_secret_basic)"),
}

export const EndpointError = Type.Object(
  {
    error: Type.Enum([...ENDPOINT_ERROR_CODES], { description: 'RFC 6749 error code' }),
    error_description: Type.String({ description: 'What was wrong, for the developer' }),
  },
  { additionalProperties: false, description: 'RFC 6749 5.2 error' },
)

/** The failures every endpoint route documents. */
export const ENDPOINT_ERRORS = {
  400: { ...EndpointError, description: 'invalid_request (a missing, repeated or malformed parameter, a body that is not a form), or another RFC 6749 error' },
  401: { ...EndpointError, description: 'invalid_client, with WWW-Authenticate: Basic' },
  500: { ...EndpointError, description: 'server_error' },
  503: { ...EndpointError, description: 'temporarily_unavailable: too many requests naming this client_id (Retry-After), or maintenance' },
}

/** The headers of every endpoint answer: no-store (RFC 6749 5.1), and the Basic challenge of a failed client authentication. */
const ENDPOINT_HEADERS: HeaderRules = {
  all: { 'Cache-Control': { description: 'no-store: no cache keeps an answer of an endpoint (with Pragma: no-cache)', required: true } },
  401: { 'WWW-Authenticate': { description: 'Basic realm="finapi", charset="UTF-8": authenticate the client with HTTP Basic (RFC 6749 5.2)', required: true } },
}

/** Makes the scope an endpoint's: forms only, no-store, errors in RFC 6749's shape. */
export function endpointScope(scope: App): void {
  acceptFormsOnly(scope)
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
  })
  scope.addHook('onRoute', documentHeaders(ENDPOINT_HEADERS))
  useErrorFamily(scope, oauthEndpointErrors, { notFound: false })
}

/**
 * What a client-authenticated route tells its service to call once the client authenticated: the request log's row
 * then names the client (its id, never its secret), the organization it belongs to, and how it authenticated.
 */
export function nameClientAsCaller(request: FastifyRequest): (client: OAuthClient) => void {
  const basic = /^basic /i.test(request.headers.authorization ?? '')
  return (client) => setCaller(request, { scheme: basic ? 'client_basic' : 'client_post', keyId: client.id, organizationId: client.organizationId })
}
