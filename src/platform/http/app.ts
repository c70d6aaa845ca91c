// The app as features see it. Route files import this type from here, never from the composition root, so
// nothing in a feature depends on how the app is assembled.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify'

/** A Fastify instance whose handlers get their types from TypeBox schemas. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>
