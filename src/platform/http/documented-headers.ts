// Response headers in the OpenAPI document. @fastify/swagger turns a response schema's `headers` member into the
// response's Header Objects; it has no word for a header every answer of that status carries, so that is marked
// in the header's schema (REQUIRED_MARK) and moved to the Header Object's `required` when the document is built
// (liftRequiredHeaders, in platform/openapi.ts). Rules that hold for a whole scope (a gateway, an endpoint family)
// are written into each route's responses by an onRoute hook, as the gateways' other rules are.
import type { RouteOptions } from 'fastify'

/** One documented response header. */
export interface HeaderDoc {
  description: string
  /** Every answer of the status carries it. */
  required?: boolean
  /** The value's JSON schema; a string when not given. */
  schema?: Record<string, unknown>
}

export type HeaderDocs = Record<string, HeaderDoc>

/** Headers by HTTP status; `all` applies to every documented status. */
export type HeaderRules = { all?: HeaderDocs } & { [status: number]: HeaderDocs }

/** The header schema's marker of a required header, replaced by `required: true` in the document. */
export const REQUIRED_MARK = 'x-finapi-required'

function headerSchema(doc: HeaderDoc): Record<string, unknown> {
  return { type: 'string', ...doc.schema, description: doc.description, ...(doc.required ? { [REQUIRED_MARK]: true } : {}) }
}

/** A copy of a response schema with these headers documented beside any it has (response schemas are shared between routes). */
export function withHeaders<T extends object>(response: T, headers: HeaderDocs): T {
  const own = (response as { headers?: Record<string, unknown> }).headers ?? {}
  const added = Object.fromEntries(Object.entries(headers).map(([name, doc]) => [name, headerSchema(doc)]))
  return { ...response, headers: { ...own, ...added } }
}

/** The responses of a route schema with the rules' headers documented (a route's own documentation of a header wins). */
export function responsesWithHeaders(responses: Record<string, object>, rules: HeaderRules): Record<string, object> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const docs = { ...rules.all, ...rules[Number(status)] }
      const own = (response as { headers?: Record<string, unknown> }).headers ?? {}
      const missing = Object.fromEntries(Object.entries(docs).filter(([name]) => !Object.keys(own).some((n) => n.toLowerCase() === name.toLowerCase())))
      return [status, Object.keys(missing).length ? withHeaders(response, missing) : response]
    }),
  )
}

/** An onRoute hook documenting the rules' headers on every response each route of the scope documents. */
export function documentHeaders(rules: HeaderRules): (route: RouteOptions) => void {
  return (route) => {
    const schema = route.schema as { response?: Record<string, object> } | undefined
    if (schema?.response) schema.response = responsesWithHeaders(schema.response, rules)
  }
}

/** Moves each header's REQUIRED_MARK to its Header Object's `required` (in a built OpenAPI document). */
export function liftRequiredHeaders(responses: Iterable<{ headers?: Record<string, { schema?: Record<string, unknown>; required?: boolean }> }>): void {
  for (const response of responses) {
    for (const header of Object.values(response.headers ?? {})) {
      if (header.schema?.[REQUIRED_MARK] === undefined) continue
      delete header.schema[REQUIRED_MARK]
      header.required = true
    }
  }
}
