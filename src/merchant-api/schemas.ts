// Wire schemas shared by every reporting route: the error bodies of the reporting family, as allow-lists, so the
// OpenAPI document shows exactly what reportingErrors renders.
import { Type, type TSchema } from 'typebox'
import { REPORTING_CODES, type ReportingCode } from './errors.js'

/** `{response: {rmsg}}`: the real service's HTTP Signature failure, the one 401 body. */
export const UnauthorizedBody = Type.Object({ response: Type.Object({ rmsg: Type.String({ enum: [REPORTING_CODES.UNAUTHORIZED.message] }) }) }, { description: 'Authentication failed' })

/** `{submitTimeUtc, reason, message, details}`: every other reporting failure. */
export function failureBody(codes: readonly ReportingCode[]): TSchema {
  return Type.Object(
    {
      submitTimeUtc: Type.String({ format: 'date-time' }),
      reason: Type.String({ enum: [...codes] }),
      message: Type.String({ enum: codes.map((c) => REPORTING_CODES[c].message) }),
      details: Type.Array(Type.Object({ field: Type.Optional(Type.String()), reason: Type.String() })),
    },
    { description: codes.map((c) => REPORTING_CODES[c].message).join('; ') },
  )
}

/** The documented response of one reporting code. */
export function errorResponse(code: ReportingCode): TSchema {
  return code === 'UNAUTHORIZED' ? UnauthorizedBody : failureBody([code])
}

/** The Error Bean of the two subscription PUTs (VALIDATION_ERROR), as reportingErrors renders it. */
export const ValidationErrorBody = Type.Object(
  {
    code: Type.String({ enum: ['VALIDATION_ERROR'] }),
    message: Type.String({ enum: [REPORTING_CODES.VALIDATION_ERROR.message] }),
    localizationKey: Type.String(),
    detail: Type.String({ description: 'Every problem, `path: message`, joined by `; `' }),
    fields: Type.Array(Type.Object({ path: Type.String({ description: 'The body member or parameter at fault' }), message: Type.String(), localizationKey: Type.String() })),
  },
  { description: 'Invalid request: every field at fault' },
)
