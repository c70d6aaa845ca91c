// The validator compiler for every route: TypeBox's compiled checks. Query strings and path parameters are
// converted to their schema's types (a number parameter arrives as text), bodies never are, so a number sent
// where the spec wants a string is an error rather than silently accepted.
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { invalid } from './errors.js'

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema)
  const convert = httpPart !== 'body'
  return (value) => {
    // Most query strings hold only text and already pass; conversion walks the value dynamically, so it only
    // runs when the plain check fails. It changes nothing that already matches its schema.
    if (check.Check(value)) return { value }
    if (convert) {
      const converted = Value.Convert(schema, value)
      if (check.Check(converted)) return { value: converted }
      return { error: [...check.Errors(converted)] as never }
    }
    return { error: [...check.Errors(value)] as never }
  }
}

// ---- NUL characters ------------------------------------------------------------------------------------------
// PostgreSQL's text and jsonb cannot hold U+0000, so a NUL stored from a request failed there with a 500 (SQLite
// took it). Rather than a check per field, every request's parsed body, query and path parameters are walked once
// before validation and a NUL anywhere, in a value or a member name, answers 400 naming the member, in the family
// of the route (a root hook: every scope inherits it). Headers cannot carry one: Node's parser refuses them.

export const NUL_REASON = 'must not contain the NUL character (U+0000)'
export const NUL_NAME_REASON = 'has a member name holding the NUL character (U+0000)'

/** Whether text anywhere in a parsed value (strings, member names, nested) holds U+0000. Iterative: any depth. */
export function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item)
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        if (key.includes('\u0000')) return true
        stack.push((v as Record<string, unknown>)[key])
      }
    }
  }
  return false
}

/**
 * The first NUL of a value as a detail: the member holding it, named as validation names members (`products[0].name`,
 * `querystring.reportName`), or the object whose member name holds it. Only called once holdsNul found one.
 */
export function nulDetail(value: unknown, part: string | undefined): { field?: string; reason: string } | undefined {
  const stack: [unknown, string | undefined][] = [[value, part]]
  while (stack.length > 0) {
    const [v, path] = stack.pop()!
    const member = (name: string) => (path === undefined ? name : `${path}.${name}`)
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { ...(path === undefined ? {} : { field: path }), reason: NUL_REASON }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path ?? ''}[${i}]`])
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v)
      if (keys.some((key) => key.includes('\u0000'))) return { ...(path === undefined ? {} : { field: path }), reason: NUL_NAME_REASON }
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Record<string, unknown>)[keys[i]!], member(keys[i]!)])
    }
  }
  return undefined
}

/** The request parts walked, with the prefix their members' names take (as schema validation names them). */
const PARTS = [
  ['params', 'params'],
  ['query', 'querystring'],
  ['body', undefined],
] as const

/**
 * A preValidation hook refusing U+0000 in a request's parsed parts. Callback style, without a promise: it runs on
 * every request. The error is the platform's `invalid`, so each family answers it in its own shape.
 */
export function refuseNul(request: { params: unknown; query: unknown; body: unknown }, _reply: unknown, done: (err?: Error) => void): void {
  for (const [name, prefix] of PARTS) {
    const value = request[name]
    if (value !== undefined && holdsNul(value)) return done(invalid([nulDetail(value, prefix)!]))
  }
  done()
}
