// What the API gateways share (banking's under /v2, the merchant API family's): reading a header's first value, and
// writing the gateway's rules into each route's schema so the OpenAPI document shows them — its security schemes
// (unless the route names its own), the query parameter every route takes, the failures the gateway answers with
// (the route's own documented answers win), and the headers it writes on the answers.
import type { FastifyRequest, RouteOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { responsesWithHeaders, type HeaderRules } from './documented-headers.js'

/** A header's value, the first one when it was sent several times; undefined when absent or blank. */
export function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  const text = Array.isArray(value) ? value[0] : value
  return text?.trim() ? text : undefined
}

export interface GatewayContract {
  security: { [scheme: string]: string[] }[]
  /** The query parameter every route takes: listed first or last among the route's own, required or not. */
  parameter: { name: string; schema: TSchema; required: boolean; first: boolean }
  /** The gateway's failures, by HTTP status. */
  responses: Record<number, unknown>
  /** The headers the gateway writes on the route's answers, by status. */
  headers?: HeaderRules
}

/** The onRoute hook that writes the contract into each route's schema. */
export function documentContract(contract: GatewayContract): (route: RouteOptions) => void {
  const { name, schema: parameter, required, first } = contract.parameter
  const param = required ? parameter : Type.Optional(parameter)
  return (route) => {
    const schema = (route.schema ??= {}) as Record<string, unknown>
    schema['security'] ??= contract.security
    const qs = schema['querystring'] as { properties?: Record<string, TSchema>; required?: string[]; type?: string } | undefined
    // Fastify calls onRoute again for the HEAD twin of a GET route, with the same schema object.
    if (qs?.properties?.[name] === undefined) {
      // Rebuilt with TypeBox rather than spread: a spread copy loses the schema's hidden kind, and with it the
      // conversion of query text to the declared types (a `limit` would stay "10" and be refused as not an integer).
      const { properties = {}, required: _required, type: _type, ...options } = qs ?? {}
      schema['querystring'] = Type.Object(first ? { [name]: param, ...properties } : { ...properties, [name]: param }, options)
    }
    const responses = { ...contract.responses, ...(schema['response'] as object | undefined) } as Record<string, object>
    schema['response'] = contract.headers ? responsesWithHeaders(responses, contract.headers) : responses
  }
}
