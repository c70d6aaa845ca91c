// Every rule of the banking gateway contract, through HTTP against a real server and database.
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApplicationService, KEY_CACHE_MS } from '../../src/applications/service.js'
import { systemClock } from '../../src/platform/clock.js'
import { createMaintenanceSwitch } from '../../src/platform/maintenance.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { probeFeature } from '../support/probe.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ features: [probeFeature], env: { RATE_LIMIT_PER_MINUTE: '1000', BODY_LIMIT_BYTES: '2048' } })
})
afterAll(() => t.close())

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('success envelope', () => {
  it('answers API-200 Success with the status block first', async () => {
    const res = await t.call('GET', '/v2/probe?v=1&echo=hi')
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ status: { code: 'API-200', message: 'Success' }, echo: 'hi' })
    expect(res.headers['content-type']).toMatch(/^application\/json/)
  })
})

describe('application key and User-Agent', () => {
  it('missing x-svc-key → API-420/400', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': undefined } })
    expect(res.status).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', message: 'Invalid Request' })
    expect(res.json.status.details).toEqual([{ field: 'x-svc-key', reason: 'required header is missing' }])
  })

  it('missing User-Agent → API-420/400', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'user-agent': undefined } })
    expect(res.status).toBe(400)
    expect(res.json.status.code).toBe('API-420')
    expect(res.json.status.details[0].field).toBe('User-Agent')
  })

  it('empty x-svc-key → API-420/400', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': '' } })
    expect(res.status).toBe(400)
    expect(res.json.status.code).toBe('API-420')
  })

  it('unknown key → API-440/403', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': 'fk_not-a-real-key' } })
    expect(res.status).toBe(403)
    expect(res.json).toEqual({ status: { code: 'API-440', message: 'Invalid Application' } })
  })

  it('a created key works, and once revoked elsewhere answers API-440/403 within the key cache time', async () => {
    // Revoked through another process's service (as `finapi keys revoke` does), not through this server.
    const operator = createApplicationService({ db: t.db, clock: t.clock })
    const { application, key } = await operator.create('Revocation test')
    expect((await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': key } })).status).toBe(200)
    expect(await operator.revoke(application.id)).toBe(true)
    t.clock.advance(KEY_CACHE_MS)
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': key } })
    expect(res.status).toBe(403)
    expect(res.json.status.code).toBe('API-440')
  })

  it('a key revoked in the same process stops working at once', async () => {
    const { application, key } = await t.app.services.applications.create('Immediate revocation')
    expect((await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': key } })).status).toBe(200)
    await t.app.services.applications.revoke(application.id)
    expect((await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': key } })).status).toBe(403)
  })

  it('stores only a hash of the key', async () => {
    const service = createApplicationService({ db: t.db, clock: systemClock })
    const { key } = await service.create('Hash test')
    const rows = await t.db.kysely.selectFrom('applications').selectAll().execute()
    expect(JSON.stringify(rows)).not.toContain(key)
    expect(JSON.stringify(rows)).not.toContain(t.sandboxKey)
  })

  it('matches header names case-insensitively', async () => {
    const res = await rawGet(t.baseUrl + '/v2/probe?v=1', { 'X-SVC-KEY': t.sandboxKey, 'USER-AGENT': 'Upper/1', 'X-CORRELATIONID': 'upper-case-id' })
    expect(res.status).toBe(200)
    expect(res.headers['x-correlationid']).toBe('upper-case-id')
  })
})

describe('version parameter', () => {
  it.each([
    ['missing', '/v2/probe'],
    ['2', '/v2/probe?v=2'],
    ['empty', '/v2/probe?v='],
    ['1.0', '/v2/probe?v=1.0'],
    ['repeated', '/v2/probe?v=1&v=1'],
  ])('v %s → API-422/404', async (_label, path) => {
    const res = await t.call('GET', path)
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ status: { code: 'API-422', message: 'Version Not Found' } })
  })
})

describe('unknown operations', () => {
  it('unknown path → API-404/404', async () => {
    const res = await t.call('GET', '/v2/no-such-thing?v=1')
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ status: { code: 'API-404', message: 'Service Not Found' } })
  })

  it('unknown method on a known path → API-404/404', async () => {
    const res = await t.call('PATCH', '/v2/probe?v=1', { body: {} })
    expect(res.status).toBe(404)
    expect(res.json.status.code).toBe('API-404')
  })

  it('still requires the application key', async () => {
    const res = await t.call('GET', '/v2/no-such-thing?v=1', { headers: { 'x-svc-key': 'wrong' } })
    expect(res.status).toBe(403)
  })
})

describe('request bodies', () => {
  it('accepts a valid JSON body', async () => {
    const res = await t.call('POST', '/v2/probe?v=1', { body: { name: 'a', count: 2 } })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ name: 'a', count: 2 })
  })

  it('malformed JSON → API-420/400', async () => {
    const res = await t.call('POST', '/v2/probe?v=1', { body: '{"name": "a",', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', message: 'Invalid Request' })
  })

  it('wrong content type → API-420/400', async () => {
    const res = await t.call('POST', '/v2/probe?v=1', { body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(400)
    expect(res.json.status.code).toBe('API-420')
    expect(res.json.status.details[0].reason).toBe('unsupported content type')
  })

  it('body over the size limit → API-420/400', async () => {
    const res = await t.call('POST', '/v2/probe?v=1', { body: { name: 'x'.repeat(5000), count: 1 } })
    expect(res.status).toBe(400)
    expect(res.json.status.code).toBe('API-420')
    expect(res.json.status.details[0].reason).toBe('body is too large')
  })

  it('missing member and wrong type → API-420/400 naming the fields', async () => {
    const missing = await t.call('POST', '/v2/probe?v=1', { body: { count: 1 } })
    expect(missing.status).toBe(400)
    expect(missing.json.status.details[0].field).toBe('name')
    const wrongType = await t.call('POST', '/v2/probe?v=1', { body: { name: 'a', count: 'many' } })
    expect(wrongType.status).toBe(400)
    expect(wrongType.json.status.details[0].field).toBe('count')
  })

  it('bad query parameter → API-420/400', async () => {
    const res = await t.call('GET', `/v2/probe?v=1&echo=${'y'.repeat(30)}`)
    expect(res.status).toBe(400)
    expect(res.json.status.code).toBe('API-420')
    expect(res.json.status.details[0].field).toBe('querystring.echo')
  })
})

describe('unexpected failures', () => {
  it('answer API-520/500 with no internals in the body', async () => {
    const res = await t.call('GET', '/v2/probe/fail?v=1')
    expect(res.status).toBe(500)
    expect(res.json).toEqual({ status: { code: 'API-520', message: 'Server Failure' } })
    expect(res.text).not.toContain('hunter2')
    expect(res.text).not.toMatch(/stack|Error/)
  })
})

describe('correlation id', () => {
  it('echoes X-CorrelationID', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'X-CorrelationID': 'abc-123' } })
    expect(res.headers['x-correlationid']).toBe('abc-123')
  })

  it('accepts x-svc-correlationid and echoes it as X-CorrelationID', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-correlationid': 'svc-456' } })
    expect(res.headers['x-correlationid']).toBe('svc-456')
  })

  it('generates a time-ordered (version 7) UUID when none is sent, on errors too', async () => {
    const ok = await t.call('GET', '/v2/probe?v=1')
    const failed = await t.call('GET', '/v2/probe', { headers: { 'x-svc-key': undefined } })
    const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    const [first, second] = [String(ok.headers['x-correlationid']), String(failed.headers['x-correlationid'])]
    expect(first).toMatch(V7)
    expect(second).toMatch(V7)
    expect(first).not.toBe(second)
    // Its first 48 bits are the wall clock's milliseconds (not the injected clock's: the id only orders an index).
    const ms = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16)
    expect(Math.abs(ms(first) - Date.now())).toBeLessThan(60_000)
    expect(ms(second)).toBeGreaterThanOrEqual(ms(first))
  })

  it('replaces an unsafe correlation id with a generated one', async () => {
    const res = await t.call('GET', '/v2/probe?v=1', { headers: { 'X-CorrelationID': 'x'.repeat(300) } })
    expect(res.headers['x-correlationid']).toMatch(UUID)
  })

  it('appears on every log line of the request', async () => {
    await t.call('GET', '/v2/probe/fail?v=1&marker=log-check', { headers: { 'X-CorrelationID': 'trace-me-789' } })
    const ofRequest = t.logs.filter((l) => l['correlationId'] === 'trace-me-789')
    // One line when the request ends (its arrival is logged at debug only), after the failure's own line.
    expect(ofRequest.map((l) => l['msg'])).toEqual(['unexpected failure', 'request completed'])
    // No line about this request went out without the id.
    const mentioning = t.logs.filter((l) => JSON.stringify(l).includes('marker=log-check'))
    expect(mentioning.length).toBeGreaterThan(0)
    for (const line of mentioning) expect(line['correlationId']).toBe('trace-me-789')
  })
})

describe('maintenance switch', () => {
  it('answers API-522/503 while on, for every server sharing the database', async () => {
    // The switch is flipped through a separate handle, as `finapi maintenance on` in another process would.
    const operator = createMaintenanceSwitch({ db: t.db, clock: systemClock })
    await operator.set(true)
    try {
      await t.app.services.maintenance.refresh()
      const res = await t.call('GET', '/v2/probe?v=1')
      expect(res.status).toBe(503)
      expect(res.json).toEqual({ status: { code: 'API-522', message: 'Server Down For Maintenance' } })
    } finally {
      await operator.set(false)
      await t.app.services.maintenance.refresh()
    }
    expect((await t.call('GET', '/v2/probe?v=1')).status).toBe(200)
  })
})

describe('throttling per application key', () => {
  it('answers API-521/429 with Retry-After past the limit, while other keys are served', async () => {
    const limited = await startTestApp({ features: [probeFeature], env: { RATE_LIMIT_PER_MINUTE: '3' } })
    try {
      const other = await createApplicationService({ db: limited.db, clock: systemClock }).create('Other')
      for (let i = 0; i < 3; i++) {
        const res = await limited.call('GET', '/v2/probe?v=1')
        expect(res.status).toBe(200)
        expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']]).toEqual(['3', String(2 - i), '60'])
      }
      const throttled = await limited.call('GET', '/v2/probe?v=1')
      expect(throttled.status).toBe(429)
      expect(throttled.json).toEqual({ status: { code: 'API-521', message: 'Throttle Limit Exceeded' } })
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0)
      expect(throttled.headers['x-correlationid']).toBeDefined()
      const otherKey = await limited.call('GET', '/v2/probe?v=1', { headers: { 'x-svc-key': other.key } })
      expect(otherKey.status).toBe(200)
      // The window restarts a minute after the key's first request (the app runs on a fake clock).
      limited.clock.advance(60_000)
      expect((await limited.call('GET', '/v2/probe?v=1')).status).toBe(200)
    } finally {
      await limited.close()
    }
  })
})

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  // node:http sends header names exactly as given (no normalisation), unlike fetch.
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}
