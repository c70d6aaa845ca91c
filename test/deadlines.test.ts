// A request not answered within HANDLER_TIMEOUT_MS is answered with a timeout in its family's contract (API-523
// on /v2), driven by the fake clock; the handler's late answer is dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectStatus } from './support/banking.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { probeFeature, slowProbe, streamingProbe } from './support/probe.js'

const slow = slowProbe()
const streaming = streamingProbe()
let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { HANDLER_TIMEOUT_MS: '2000' }, features: [probeFeature, slow.routes, streaming.routes] })
})
afterAll(async () => {
  slow.release()
  streaming.release()
  await t.close()
})

describe('request deadlines', () => {
  it('answers API-523/504 in the banking envelope once the limit has passed, and not before', async () => {
    let answered = false
    const pending = t.call('GET', '/v2/probe/slow?v=1').finally(() => (answered = true))
    await slow.arrived
    await t.clock.tick(1_800)
    await new Promise((resolve) => setTimeout(resolve, 50)) // let any answer reach the client
    expect(answered).toBe(false)
    await t.clock.tick(400)
    const res = await pending
    expectStatus(res, 504, 'API-523')
    expect(res.json.status.message).toBe('Server Timeout')
    // The handler finishing late changes nothing for the client and does not crash the server.
    slow.release()
    expectStatus(await t.call('GET', '/v2/probe?v=1'), 200, 'API-200')
  })

  it('leaves fast requests alone', async () => {
    const res = await t.call('GET', '/v2/probe?v=1')
    await t.clock.tick(5_000)
    expectStatus(res, 200, 'API-200')
  })
  it('leaves an answer whose body is still streaming past the limit (a long report download) to finish', async () => {
    const pending = t.call('GET', '/v2/probe/stream?v=1')
    await streaming.arrived
    await t.clock.tick(2_400)
    await new Promise((resolve) => setTimeout(resolve, 50)) // let a sweep's cut reach the client
    streaming.release()
    const res = await pending
    expect(res.status).toBe(200)
    expect(res.text).toBe('first,last')
  })
})
