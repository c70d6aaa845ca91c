// Operations endpoints and logging: health, readiness, metrics, and no secrets in logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DIALECT } from './support/database.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { probeFeature } from './support/probe.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ features: [probeFeature] })
})
afterAll(() => t.close())

const bare = { 'x-svc-key': undefined }

describe('test database', () => {
  it('is the dialect this run was asked for', () => {
    expect(t.db.dialect).toBe(TEST_DIALECT)
    expect(t.config.databaseUrl.startsWith(TEST_DIALECT === 'postgres' ? 'postgres://' : 'sqlite:')).toBe(true)
  })
})

describe('health', () => {
  it('/health/live answers', async () => {
    const res = await t.call('GET', '/health/live', { headers: bare })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ status: 'ok' })
  })

  it('/health/ready checks the database', async () => {
    const res = await t.call('GET', '/health/ready', { headers: bare })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ status: 'ok' })
  })

  it('/health/ready answers 503 when the database is unreachable', async () => {
    const broken = await startTestApp()
    try {
      await broken.db.close()
      const res = await broken.call('GET', '/health/ready', { headers: bare })
      expect(res.status).toBe(503)
      expect(res.json).toEqual({ status: 'unavailable' })
    } finally {
      // close(), not the app's alone: it also drops the test's database (a SQLite one is a folder in the temp folder).
      await broken.close()
    }
  })
})

describe('/metrics', () => {
  it('counts requests and records latency by route and status', async () => {
    await t.call('GET', '/v2/probe?v=1')
    await t.call('GET', '/v2/probe?v=2')
    const res = await t.call('GET', '/metrics', { headers: bare })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v2\/probe",status_code="200"\} [1-9]/)
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v2\/probe",status_code="404"\} [1-9]/)
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v2\/probe",status_code="200"\}/)
    expect(res.text).toContain('process_cpu_user_seconds_total')
  })
})

describe('logs', () => {
  it('never contain the application key, the Authorization header or secret query parameters', async () => {
    await t.call('GET', '/v2/probe?v=1&code=top-secret-code', { headers: { authorization: 'Bearer secret-token-value' } })
    await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': 'fk_wrong-key-should-not-be-logged' } })
    const all = JSON.stringify(t.logs)
    expect(t.logs.length).toBeGreaterThan(0)
    expect(all).not.toContain(t.sandboxKey)
    expect(all).not.toContain('fk_wrong-key-should-not-be-logged')
    expect(all).not.toContain('secret-token-value')
    expect(all).not.toContain('top-secret-code')
    expect(all).toContain('code=[redacted]')
  })
})
