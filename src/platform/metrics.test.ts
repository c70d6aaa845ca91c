import { describe, expect, it } from 'vitest'
import { LATENCY_BUCKETS, RequestMetrics } from './metrics.js'

function linesOf(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix))
}

describe('RequestMetrics', () => {
  it('counts each series and writes cumulative buckets, +Inf, sum and count in the Prometheus text format', async () => {
    const metrics = new RequestMetrics()
    metrics.observe('GET', '/v2/accounts', 200, 0.0005) // first bucket
    metrics.observe('GET', '/v2/accounts', 200, 0.001) // a bound belongs to its own bucket (le = less or equal)
    metrics.observe('GET', '/v2/accounts', 200, 0.003)
    metrics.observe('GET', '/v2/accounts', 200, 7) // above every bound
    metrics.observe('GET', '/v2/accounts', 401, 0.002)
    const text = await metrics.render()

    expect(text).toContain('# TYPE http_requests_total counter')
    expect(text).toContain('# TYPE http_request_duration_seconds histogram')
    expect(linesOf(text, 'http_requests_total{')).toEqual([
      'http_requests_total{method="GET",route="/v2/accounts",status_code="200"} 4',
      'http_requests_total{method="GET",route="/v2/accounts",status_code="401"} 1',
    ])
    const ok = linesOf(text, 'http_request_duration_seconds_bucket{').filter((l) => l.includes('status_code="200"'))
    expect(ok).toHaveLength(LATENCY_BUCKETS.length + 1)
    expect(ok[0]).toBe('http_request_duration_seconds_bucket{le="0.001",method="GET",route="/v2/accounts",status_code="200"} 2')
    expect(ok[1]).toBe('http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/v2/accounts",status_code="200"} 2')
    expect(ok[2]).toBe('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v2/accounts",status_code="200"} 3')
    expect(ok[LATENCY_BUCKETS.length - 1]).toBe('http_request_duration_seconds_bucket{le="5",method="GET",route="/v2/accounts",status_code="200"} 3')
    expect(ok[LATENCY_BUCKETS.length]).toBe('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v2/accounts",status_code="200"} 4')
    expect(linesOf(text, 'http_request_duration_seconds_count{method="GET",route="/v2/accounts",status_code="200"}')).toEqual([
      'http_request_duration_seconds_count{method="GET",route="/v2/accounts",status_code="200"} 4',
    ])
    const sum = Number(linesOf(text, 'http_request_duration_seconds_sum{method="GET",route="/v2/accounts",status_code="200"}')[0]!.split(' ')[1])
    expect(sum).toBeCloseTo(7.0045, 10)
    // prom-client's process metrics follow.
    expect(text).toContain('process_cpu_user_seconds_total')
  })

  it('escapes label values', async () => {
    const metrics = new RequestMetrics()
    metrics.observe('GET', '/a"b\\c\nd', 200, 0.01)
    expect(await metrics.render()).toContain('http_requests_total{method="GET",route="/a\\"b\\\\c\\nd",status_code="200"} 1')
  })
})
