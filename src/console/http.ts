// What every console route shares: the session cookie, the signed-in request's session, form fields, page replies.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { readCookie } from '../oauth/form.js'
import { forbidden, unauthenticated } from '../platform/errors.js'
import type { ConsoleSession } from './sessions/service.js'
import type { Chrome } from './layout.js'

export const SESSION_COOKIE = 'finapi_console'
/** Before sign-in: a random value the sign-in form's CSRF token is bound to. */
export const PRE_COOKIE = 'finapi_console_pre'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's hook on every console request that needs a signed-in user. */
    consoleSession?: ConsoleSession
  }
}

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  return readCookie(request.headers.cookie, name)
}

/** HttpOnly, SameSite=Strict, only under /console; Secure whenever the request came over HTTPS (trust proxy applied). */
export function cookie(request: FastifyRequest, name: string, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : ''
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`
}

export function session(request: FastifyRequest): ConsoleSession {
  if (!request.consoleSession) throw unauthenticated()
  return request.consoleSession
}

export const chrome = (s: ConsoleSession): Chrome => ({ actingId: s.actingId, csrfToken: s.csrfToken, operator: s.operator })

/** One form field as text ('' when absent); a repeated field is refused as a forged or broken form. */
export function field(request: FastifyRequest, name: string): string {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name]
  if (value === undefined) return ''
  if (typeof value !== 'string') throw forbidden()
  return value
}

/** A field that may repeat (a multiple select), as a list. */
export function fields(request: FastifyRequest, name: string): string[] {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name]
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')
}

/** A query parameter as text ('' when absent, the first when repeated). */
export function queryParam(request: FastifyRequest, name: string): string {
  const value = ((request.query ?? {}) as Record<string, unknown>)[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : ''
}

export function sendPage(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').send(body)
}
