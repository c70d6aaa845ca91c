// Wire schemas of the gateway envelope. Every /v2 body, success or failure, carries `status: {code, message}`.
import { Type, type TProperties, type TSchema } from 'typebox'
import { API_STATUS, type ApiCode, type ApiErrorCode } from '../errors.js'

export const ErrorDetail = Type.Object(
  {
    field: Type.Optional(Type.String({ description: 'The header, parameter or body member at fault' })),
    reason: Type.String(),
  },
  { additionalProperties: false },
)

function statusSchema(codes: readonly ApiCode[]) {
  return Type.Object(
    {
      code: Type.Enum([...codes]),
      message: Type.String({ description: 'The message the Errors table gives for the code' }),
      details: Type.Optional(Type.Array(ErrorDetail, { description: 'What was wrong with the request, when known' })),
    },
    { additionalProperties: false, description: 'APIStatus' },
  )
}

/** A successful body: `status` (API-200 Success) followed by the operation's own members. */
export function successBody<T extends TProperties>(members: T) {
  return Type.Object({ status: statusSchema(['API-200']), ...members })
}

const WHEN: Record<ApiErrorCode, string> = {
  'API-404': 'no operation at this path and method',
  'API-420': 'a required header (x-svc-key, User-Agent) is missing, or the body or a parameter is malformed, of the wrong content type or too large',
  'API-422': 'the query parameter `v` is missing or is not 1',
  'API-430': 'a downstream provider failed',
  'API-440': 'the x-svc-key is unknown or revoked',
  'API-448': 'the Authorization token is missing, malformed, expired or revoked',
  'API-520': 'an unexpected failure; the body carries no internals',
  'API-521': 'the application key sent more requests this minute than allowed; see Retry-After',
  'API-522': 'the service is switched to maintenance',
  'API-523': 'the request was not answered within the server limit (HANDLER_TIMEOUT_MS)',
  'API-526': 'the requested feature is not supported',
}

/** The gateway answers these on every /v2 route, whatever the route does. */
export const GATEWAY_ERROR_CODES: readonly ApiErrorCode[] = ['API-420', 'API-440', 'API-422', 'API-404', 'API-521', 'API-520', 'API-522', 'API-523']

/** OpenAPI responses for the given error codes, grouped by HTTP status, generated from the one error table. */
export function errorResponses(codes: readonly ApiErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ApiErrorCode[]>()
  for (const code of codes) {
    const http = API_STATUS[code].http
    byStatus.set(http, [...(byStatus.get(http) ?? []), code])
  }
  const responses: Record<number, TSchema> = {}
  for (const [http, group] of byStatus) {
    const description = group.map((c) => `${c} ${API_STATUS[c].message}: ${WHEN[c]}.`).join(' ')
    responses[http] = Type.Object({ status: statusSchema(group) }, { description })
  }
  return responses
}
