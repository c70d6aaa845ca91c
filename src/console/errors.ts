// The console's error family: a person reads these, so every failure is the console's one error page with a plain
// sentence; never a detail of the request or of the server.
import type { ErrorFamily } from '../platform/http/error-family.js'
import { errorPage } from './layout.js'

const CODES = {
  bad_request: { http: 400, message: 'The request could not be understood. Go back and try again.' },
  signed_out: { http: 401, message: 'You are not signed in, or your session has ended. Sign in again.' },
  forbidden: { http: 403, message: 'This form has expired or did not come from this console. Go back, reload the page and try again.' },
  not_found: { http: 404, message: 'There is nothing here, or it is not yours to see.' },
  conflict: { http: 409, message: 'That conflicts with something that exists already.' },
  rate_limited: { http: 429, message: 'Too many attempts. Wait a little and try again.' },
  server_error: { http: 500, message: 'Something went wrong on our side. Try again in a moment.' },
  unavailable: { http: 503, message: 'The service is busy or in maintenance. Try again in a moment.' },
} as const

type Code = keyof typeof CODES

const TITLES: Record<Code, string> = {
  bad_request: 'Cannot do that',
  signed_out: 'Signed out',
  forbidden: 'Refused',
  not_found: 'Not found',
  conflict: 'Cannot do that',
  rate_limited: 'Too many attempts',
  server_error: 'Something went wrong',
  unavailable: 'Unavailable',
}

export const consoleErrors: ErrorFamily<Code> = {
  name: 'console',
  codes: CODES,
  kinds: {
    unauthenticated: 'signed_out',
    forbidden: 'forbidden',
    not_found: 'not_found',
    invalid: 'bad_request',
    conflict: 'conflict',
    not_modified: 'bad_request',
    rate_limited: 'rate_limited',
    maintenance: 'unavailable',
    unavailable: 'unavailable',
    timeout: 'unavailable',
    internal: 'server_error',
  },
  contentType: 'text/html; charset=utf-8',
  render: (error) => errorPage(TITLES[error.code], CODES[error.code].message),
}
