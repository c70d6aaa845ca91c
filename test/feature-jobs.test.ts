// A feature's job kinds are registered with the one runner by the composition root, and the server's poller runs
// them on the clock: enqueued in a transaction that commits, run once when the fake clock reaches the poll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Feature } from '../src/platform/feature.js'
import { startTestApp, type TestApp } from './support/harness.js'

const ran: string[] = []
const probe: Feature = {
  name: 'probe-jobs',
  services: {},
  jobs: [{ kind: 'probe.record', handler: async (payload: { note: string }) => void ran.push(payload.note) }],
}

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { JOBS_POLL_MS: '1000' }, extraFeatures: [probe] })
})
afterAll(() => t.close())

describe("features' jobs", () => {
  it('runs a job a feature enqueued in its transaction once the poller comes round, and only once', async () => {
    await t.db.kysely.transaction().execute((trx) => t.app.services.jobs.enqueue(trx, { kind: 'probe.record', payload: { note: 'committed' } }))
    await expect(
      t.db.kysely.transaction().execute(async (trx) => {
        await t.app.services.jobs.enqueue(trx, { kind: 'probe.record', payload: { note: 'rolled back' } })
        throw new Error('the caller fails after enqueueing')
      }),
    ).rejects.toThrow('the caller fails')
    expect(ran).toEqual([])
    await t.clock.tick(1_000)
    expect(ran).toEqual(['committed'])
    await t.clock.tick(5_000)
    expect(ran).toEqual(['committed'])
  })
})
