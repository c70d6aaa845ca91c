// Liveness (the process answers) and readiness (it can reach its database), for orchestrators and load balancers.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Db } from './db/database.js'

const Health = Type.Object({ status: Type.Enum(['ok', 'unavailable']) })

export async function healthRoutes(app: FastifyInstance, opts: { db: Pick<Db, 'ping'> }) {
  const tags = ['operations']
  app.get('/health/live', { schema: { tags, operationId: 'live', response: { 200: Health } } }, async () => ({ status: 'ok' as const }))

  app.get(
    '/health/ready',
    { schema: { tags, operationId: 'ready', response: { 200: Health, 503: Health } } },
    async (request, reply) => {
      try {
        await opts.db.ping()
        return { status: 'ok' as const }
      } catch (err) {
        request.log.error({ err }, 'readiness check failed: database unreachable')
        return reply.code(503).send({ status: 'unavailable' as const })
      }
    },
  )
}
