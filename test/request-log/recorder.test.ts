// The request log's batching, with a writer whose writes the test ends and the fake clock: calls that end while a
// batch is being written wait for their own interval (or until their batch is full), instead of being handed over the
// moment the write ends, which under load cut a batch at every write's round trip to the thread, a few calls each.
import { describe, expect, it, vi } from 'vitest'
import { LabelledCounter } from '../../src/platform/counters.js'
import { createRecorder } from '../../src/request-log/recorder.js'
import type { BufferedCall, SealedBatch } from '../../src/request-log/rows.js'
import { FakeClock } from '../support/clock.js'

const call = (correlationId: string): BufferedCall => ({ atMs: 0, organizationId: null, method: 'GET', path: '/v2/accounts', status: 200, durationUs: 1, correlationId, scheme: 'none', keyId: null })

/** A recorder whose writes end when the test says: `written` has each batch's size as its write starts. */
function recorderWithHeldWrites(batchRows: number) {
  const clock = new FakeClock()
  const written: number[] = []
  const pending: (() => void)[] = []
  const writer = {
    write: (batch: SealedBatch) => {
      written.push(batch.count)
      return new Promise<void>((resolve) => pending.push(resolve))
    },
    close: async () => undefined,
  }
  const outcomes = new LabelledCounter<'written' | 'dropped_buffer_full' | 'dropped_write_failed'>('t_rows_total', 'test', 'outcome')
  const recorder = createRecorder({ writer, clock, outcomes, onError: (err) => expect.fail(String(err)), options: { batchRows, maxBuffered: 1_000, intervalMs: 250 } })
  const endWrite = () => pending.shift()!()
  return { clock, written, recorder, endWrite }
}

describe('the request log recorder', () => {
  it('keeps the calls that end during a write for their own interval', async () => {
    const { clock, written, recorder, endWrite } = recorderWithHeldWrites(100)
    recorder.record(call('a'))
    const firstWrite = clock.tick(250)
    await vi.waitFor(() => expect(written).toEqual([1]))
    recorder.record(call('b'))
    recorder.record(call('c'))
    endWrite()
    await firstWrite
    // Not handed over as the write ended: b and c wait a quarter second from b.
    await clock.tick(249)
    expect(written).toEqual([1])
    const secondWrite = clock.tick(1)
    await vi.waitFor(() => expect(written).toEqual([1, 2]))
    endWrite()
    await secondWrite
    expect(clock.pendingTimers).toBe(0)
  })

  it('writes a batch that fills during a write as soon as that write ends, and the rest at their interval', async () => {
    const { clock, written, recorder, endWrite } = recorderWithHeldWrites(2)
    recorder.record(call('a'))
    const firstWrite = clock.tick(250)
    await vi.waitFor(() => expect(written).toEqual([1]))
    for (const id of ['b', 'c', 'd']) recorder.record(call(id))
    endWrite()
    // b and c filled a batch: written without waiting; d waits for its interval.
    await vi.waitFor(() => expect(written).toEqual([1, 2]))
    endWrite()
    await firstWrite
    expect(written).toEqual([1, 2])
    const lastWrite = clock.tick(250)
    await vi.waitFor(() => expect(written).toEqual([1, 2, 1]))
    endWrite()
    await lastWrite
  })

  it('writes everything it holds when flushed, including calls that arrived during an earlier write', async () => {
    const { clock, written, recorder, endWrite } = recorderWithHeldWrites(100)
    recorder.record(call('a'))
    const firstWrite = clock.tick(250)
    await vi.waitFor(() => expect(written).toEqual([1]))
    recorder.record(call('b'))
    const flushed = recorder.flush()
    endWrite()
    await firstWrite
    await vi.waitFor(() => expect(written).toEqual([1, 1]))
    endWrite()
    await flushed
  })
})
