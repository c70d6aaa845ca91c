// The request log's buffer through HTTP on a real server, driven by the fake clock: rows wait in memory until the
// interval's timer or a full batch, are written in batches, are dropped and counted beyond the bound (the database
// not keeping up: here, no timer firing), and what waits is written when the app closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
let closed = false

beforeAll(async () => {
  t = await startTestApp({ env: { REQUEST_LOG: 'on', REQUEST_LOG_INTERVAL_MS: '400' }, requestLog: { recorder: { maxBuffered: 5, batchRows: 3 } } })
}, 60_000)
afterAll(async () => {
  if (!closed) await t?.close()
})

const rows = async () => (await t.db.kysely.selectFrom('request_log').select('correlation_id').orderBy('id').execute()).map((r) => r.correlation_id)
const calls = async (...ids: string[]) => {
  for (const id of ids) expect((await t.call('GET', '/v2/accounts?v=1', { headers: { 'x-correlationid': id } })).status).toBe(401)
}
const dropped = async () => /request_log_rows_total\{outcome="dropped_buffer_full"\} (\d+)/.exec((await t.call('GET', '/metrics')).text)?.[1]

describe('the request log buffer', () => {
  it('writes a full batch on the next tick, keeps at most its bound waiting, and counts what it dropped', async () => {
    await calls('b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7')
    expect(await rows()).toEqual([])
    expect(await dropped()).toBe('2')
    await t.clock.tick()
    expect(await rows()).toEqual(['b1', 'b2', 'b3', 'b4', 'b5'])
  })

  it('writes a lone call when the interval (REQUEST_LOG_INTERVAL_MS) has passed, not before', async () => {
    await calls('c1')
    await t.clock.tick(399)
    expect(await rows()).not.toContain('c1')
    await t.clock.tick(1)
    expect(await rows()).toContain('c1')
  })

  it('writes what waits when the app closes', async () => {
    await calls('d1')
    await t.app.close()
    expect(await rows()).toContain('d1')
    closed = true
    await t.close()
  })
})
