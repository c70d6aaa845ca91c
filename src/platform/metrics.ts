// Prometheus metrics: request counts and latency by method, route template and status, plus the process
// defaults. Each app owns its metrics, so several apps in one process (tests) do not collide.
//
// The request metrics are recorded on every request, so they are kept here in plain counters and written in the
// Prometheus text format at scrape time. prom-client's observe() validates and hashes the label set on every call,
// which measured as a large share of a cached account read (see bench/). The process metrics stay with prom-client.
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { Registry, collectDefaultMetrics } from 'prom-client'
import { Type } from 'typebox'
import { escapeLabel, type LabelledCounter } from './counters.js'
import { accessLogger, type AccessEntry } from './logger.js'

/** Upper bounds of the latency buckets, in seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const

interface Series {
  /** Already written as Prometheus label pairs, without `le`. */
  readonly labels: string
  count: number
  sum: number
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly buckets: number[]
}

export class RequestMetrics {
  readonly registry = new Registry()
  // method → route → status. Route templates come from registered routes only, so the number of series is bounded.
  private readonly byMethod = new Map<string, Map<string, Map<number, Series>>>()
  private readonly all: Series[] = []

  /** The features' own counters (Feature.counters) and registries (Feature.metrics), written after the request metrics. */
  constructor(
    private readonly counters: readonly LabelledCounter[] = [],
    private readonly features: readonly Registry[] = [],
  ) {
    collectDefaultMetrics({ register: this.registry })
  }

  /** Records one answered request. `route` is the route template (never the raw URL), or 'unmatched'. */
  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byRoute = this.byMethod.get(method)
    if (!byRoute) this.byMethod.set(method, (byRoute = new Map()))
    let byStatus = byRoute.get(route)
    if (!byStatus) byRoute.set(route, (byStatus = new Map()))
    let series = byStatus.get(statusCode)
    if (!series) {
      series = { labels: `method="${escapeLabel(method)}",route="${escapeLabel(route)}",status_code="${statusCode}"`, count: 0, sum: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) }
      byStatus.set(statusCode, series)
      this.all.push(series)
    }
    let i = 0
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++
    series.buckets[i]!++
    series.count++
    series.sum += seconds
  }

  /** The whole exposition: the request metrics, then prom-client's process metrics. */
  async render(): Promise<string> {
    const lines = ['# HELP http_requests_total HTTP requests answered', '# TYPE http_requests_total counter']
    for (const s of this.all) lines.push(`http_requests_total{${s.labels}} ${s.count}`)
    lines.push('', '# HELP http_request_duration_seconds Time from request received to response sent', '# TYPE http_request_duration_seconds histogram')
    for (const s of this.all) {
      let cumulative = 0
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += s.buckets[i]!
        lines.push(`http_request_duration_seconds_bucket{le="${bound}",${s.labels}} ${cumulative}`)
      })
      lines.push(`http_request_duration_seconds_bucket{le="+Inf",${s.labels}} ${s.count}`)
      lines.push(`http_request_duration_seconds_sum{${s.labels}} ${s.sum}`)
      lines.push(`http_request_duration_seconds_count{${s.labels}} ${s.count}`)
    }
    for (const counter of this.counters) lines.push('', ...counter.exposition())
    const features = await Promise.all(this.features.map((r) => r.metrics()))
    return `${lines.join('\n')}\n\n${await this.registry.metrics()}${features.map((text) => `\n${text}`).join('')}`
  }
}

/**
 * Fastify reports the end of every request (answered, or its connection failed) to its log controller, once.
 * Recording the request metrics there, rather than in an onResponse hook, spares each request a hook run; and the
 * request is logged there in one line (method, redacted URL, status, time) instead of Fastify's two.
 */
export class MeteringLogController extends LogController {
  constructor(
    private readonly metrics: RequestMetrics,
    options: ConstructorParameters<typeof LogController>[0],
    /** Also told of each request's end (the request deadlines), so that costs no hook either. */
    private readonly onCompleted: (reply: FastifyReply) => void,
    /** The app's logger: each request's completion line is written through an access logger derived from it. */
    logger: Logger,
  ) {
    super(options)
    this.access = accessLogger(logger)
  }

  /** The per-request line (see accessLogger): built from fields that hold no secret, so it skips pino's redaction. */
  private readonly access: (entry: AccessEntry) => void

  /** One line per request, written when it ends: the arrival is logged only at debug. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The route template (not the raw URL) keeps the series bounded; unmatched paths share one label.
    this.metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    this.onCompleted(reply)
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else {
      // The time in milliseconds to the microsecond: a double's seventeen digits cost more to write than the line.
      const responseTime = Math.round(reply.elapsedTime * 1000) / 1000
      this.access({ correlationId: request.id, method: request.method, url: request.url, remoteAddress: request.ip, userAgent: request.headers['user-agent'], statusCode: reply.statusCode, responseTime })
    }
  }
}

/** GET /metrics, in the Prometheus text format. */
export async function metricsRoutes(app: FastifyInstance, metrics: RequestMetrics): Promise<void> {
  const schema = {
    tags: ['operations'],
    operationId: 'metrics',
    summary: 'Prometheus metrics: requests by method, route and status, their latency, the features\' own counters, the process',
    response: { 200: { description: 'The Prometheus text exposition format (0.0.4)', content: { 'text/plain': { schema: Type.String() } } } },
  }
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.render()
  })
}
