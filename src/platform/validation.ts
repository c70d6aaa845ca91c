// The validator compiler for every route: TypeBox's compiled checks. Query strings and path parameters are
// converted to their schema's types (a number parameter arrives as text), bodies never are, so a number sent
// where the spec wants a string is an error rather than silently accepted.
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'

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
