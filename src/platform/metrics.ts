// Prometheus metrics: request counts and latency by route template and status, plus the process defaults.
// Each app owns its registry, so several apps in one process (tests) do not collide.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status_code'] as const
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })

  // prom-client hashes a label set on every call; the series of one method, route and status are looked up once.
  const series = new Map<string, { count: { inc(): void }; seconds: { observe(value: number): void } }>()

  app.addHook('onResponse', (request, reply, done) => {
    // The route template (not the raw URL) keeps label cardinality bounded; unmatched paths share one label.
    const route = request.routeOptions.url ?? 'unmatched'
    const key = `${request.method} ${reply.statusCode} ${route}`
    let s = series.get(key)
    if (!s) {
      const labels = [request.method, route, String(reply.statusCode)] as const
      s = { count: requests.labels(...labels), seconds: duration.labels(...labels) }
      series.set(key, s)
    }
    s.count.inc()
    s.seconds.observe(reply.elapsedTime / 1000)
    done()
  })

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType)
    return registry.metrics()
  })
})
