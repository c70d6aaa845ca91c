// The jobs facility on a real database (SQLite, or PostgreSQL with TEST_PG_ADMIN_URL) and the fake clock:
// enqueue in the caller's transaction, run, retry with backoff, give up, deduplicate, and take over a job whose
// worker's lease lapsed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '../src/platform/db/database.js'
import { createJobs, pruneDoneJobs, type Jobs } from '../src/platform/jobs/service.js'
import { DeferJob, RetryJob, exponentialBackoff, type JobInfo } from '../src/platform/jobs/types.js'
import { FakeClock } from './support/clock.js'
import { openMigratedTestDatabase, TEST_DIALECT } from './support/database.js'

let opened: Awaited<ReturnType<typeof openMigratedTestDatabase>>
let db: Db
beforeAll(async () => {
  opened = await openMigratedTestDatabase()
  db = opened.db
})
afterAll(async () => {
  await opened.close()
})

let clock: FakeClock
let jobs: Jobs
let errors: unknown[]
beforeEach(async () => {
  await db.kysely.deleteFrom('jobs').execute()
  clock = new FakeClock()
  errors = []
  jobs = createJobs({ db, clock, owner: 'worker-a', onError: (err) => errors.push(err) })
})

const allJobs = () => db.kysely.selectFrom('jobs').selectAll().execute()

describe(`jobs on ${TEST_DIALECT}`, () => {
  it('runs an enqueued job once and marks it done', async () => {
    const seen: unknown[] = []
    jobs.register<{ n: number }>('echo', async (payload, job) => void seen.push([payload, job.attempt]))
    const { id, created } = await jobs.enqueue(db.kysely, { kind: 'echo', payload: { n: 1 } })
    expect(created).toBe(true)
    expect((await jobs.get(id))?.status).toBe('pending')

    expect(await jobs.runDue()).toEqual({ succeeded: 1, failed: 0, lost: 0 })
    expect(seen).toEqual([[{ n: 1 }, 1]])
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 1, lastError: null, leaseOwner: null, finishedAt: clock.now().toISOString() })
    expect(await jobs.runDue()).toEqual({ succeeded: 0, failed: 0, lost: 0 })
  })

  it('does not run a job before its runAt', async () => {
    let runs = 0
    jobs.register('later', async () => void runs++)
    await jobs.enqueue(db.kysely, { kind: 'later', payload: null, runAt: new Date(clock.now().getTime() + 60_000) })
    await jobs.runDue()
    expect(runs).toBe(0)
    clock.advance(60_000)
    await jobs.runDue()
    expect(runs).toBe(1)
  })

  it('retries a failed job after its backoff, keeping the last error, until it succeeds', async () => {
    let calls = 0
    jobs.register('flaky', async () => {
      if (++calls < 3) throw new Error(`failure ${calls}`)
    })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'flaky', payload: {} })

    expect(await jobs.runDue()).toEqual({ succeeded: 0, failed: 1, lost: 0 })
    const afterFirst = await jobs.get(id)
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1, lastError: 'Error: failure 1' })
    expect(Date.parse(afterFirst!.runAt) - clock.now().getTime()).toBe(exponentialBackoff(1)) // e^1 s
    expect(errors).toHaveLength(1)

    clock.advance(exponentialBackoff(1) - 1)
    expect((await jobs.runDue()).failed).toBe(0) // not yet due
    clock.advance(1)
    expect((await jobs.runDue()).failed).toBe(1)
    expect(await jobs.get(id)).toMatchObject({ status: 'pending', attempts: 2, lastError: 'Error: failure 2' })

    clock.advance(exponentialBackoff(2))
    expect((await jobs.runDue()).succeeded).toBe(1)
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 3, lastError: null })
  })

  it('marks a job failed after maxAttempts and keeps it', async () => {
    jobs.register('doomed', async () => Promise.reject(new Error('always')), { maxAttempts: 3, backoff: () => 1_000 })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'doomed', payload: {} })
    for (let i = 0; i < 5; i++) {
      await jobs.runDue()
      clock.advance(1_000)
    }
    expect(await jobs.get(id)).toMatchObject({ status: 'failed', attempts: 3, lastError: 'Error: always' })
    expect((await jobs.get(id))?.finishedAt).not.toBeNull()
    expect(errors).toHaveLength(3)
  })

  it('treats a second enqueue with the same idempotency key as a no-op returning the first id', async () => {
    const first = await jobs.enqueue(db.kysely, { kind: 'once', payload: { v: 1 }, idempotencyKey: 'order-42' })
    const second = await jobs.enqueue(db.kysely, { kind: 'once', payload: { v: 2 }, idempotencyKey: 'order-42' })
    expect(second).toEqual({ id: first.id, created: false })
    await jobs.enqueue(db.kysely, { kind: 'once', payload: { v: 3 } })
    await jobs.enqueue(db.kysely, { kind: 'once', payload: { v: 4 } }) // no key: never deduplicated
    const rows = await allJobs()
    expect(rows).toHaveLength(3)
    expect(JSON.parse(rows.find((r) => r.id === first.id)!.payload)).toEqual({ v: 1 })
  })

  it('writes the job in the caller\'s transaction: a rollback leaves no job, a commit leaves one', async () => {
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await jobs.enqueue(trx, { kind: 'outbox', payload: { event: 'lost' } })
        throw new Error('the caller\'s work failed')
      }),
    ).rejects.toThrow('the caller\'s work failed')
    expect(await allJobs()).toHaveLength(0)

    await db.kysely.transaction().execute((trx) => jobs.enqueue(trx, { kind: 'outbox', payload: { event: 'kept' } }))
    expect((await allJobs()).map((r) => JSON.parse(r.payload))).toEqual([{ event: 'kept' }])
  })

  it('lets another worker take a job whose lease lapsed, and ignores the first worker\'s late result', async () => {
    let release: () => void = () => {}
    let signal: AbortSignal | undefined
    const started = new Promise<void>((resolve) => {
      jobs.register(
        'slow',
        (_payload, job: JobInfo) => {
          signal = job.signal
          resolve()
          return new Promise<void>((done) => (release = done))
        },
        { leaseMs: 30_000 },
      )
    })
    const other = createJobs({ db, clock, owner: 'worker-b' })
    const ranOnB: number[] = []
    other.register('slow', async (_payload, job) => void ranOnB.push(job.attempt), { leaseMs: 30_000 })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'slow', payload: {} })

    const firstRun = jobs.runDue()
    await started
    expect(await jobs.get(id)).toMatchObject({ status: 'running', attempts: 1, leaseOwner: 'worker-a' })
    expect(await other.runDue()).toEqual({ succeeded: 0, failed: 0, lost: 0 }) // leased to worker-a

    clock.advance(30_000)
    await clock.tick() // worker-a's lease timer: its handler is told to stop
    expect(signal?.aborted).toBe(true)
    expect(await other.runDue()).toEqual({ succeeded: 1, failed: 0, lost: 0 })
    expect(ranOnB).toEqual([2])
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 2 })

    release()
    expect(await firstRun).toEqual({ succeeded: 0, failed: 0, lost: 1 }) // too late: nothing recorded
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 2, lastError: null })
  })

  it('fails a job whose worker stopped during its last allowed attempt', async () => {
    jobs.register('hang', () => new Promise<void>(() => {}), { leaseMs: 1_000, maxAttempts: 1 })
    const other = createJobs({ db, clock, owner: 'worker-b' })
    other.register('hang', async () => {}, { leaseMs: 1_000, maxAttempts: 1 })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'hang', payload: {} })
    void jobs.runDue() // never finishes: this worker "died"
    await expect.poll(async () => (await jobs.get(id))?.status).toBe('running')
    clock.advance(1_000)
    await other.runDue()
    expect(await jobs.get(id)).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('lease expired') })
  })

  it('polls on the clock once started, refuses a second start, and stops', async () => {
    let runs = 0
    jobs.register('polled', async () => void runs++)
    await jobs.enqueue(db.kysely, { kind: 'polled', payload: {} })
    jobs.start(1_000)
    expect(() => jobs.start(1_000)).toThrow(/already started/)
    await clock.tick(999)
    expect(runs).toBe(0)
    await clock.tick(1)
    expect(runs).toBe(1)
    await jobs.enqueue(db.kysely, { kind: 'polled', payload: {} })
    await jobs.stop()
    await clock.tick(10_000)
    expect(runs).toBe(1)
    expect(clock.pendingTimers).toBe(0)
  })

  it('prunes done jobs past their retention and keeps failed ones', async () => {
    jobs.register('ok', async () => {})
    jobs.register('bad', async () => Promise.reject(new Error('no')), { maxAttempts: 1 })
    await jobs.enqueue(db.kysely, { kind: 'ok', payload: {} })
    await jobs.enqueue(db.kysely, { kind: 'bad', payload: {} })
    await jobs.runDue()
    expect(await pruneDoneJobs(db, clock, 60_000)).toBe(0)
    clock.advance(60_001)
    expect(await pruneDoneJobs(db, clock, 60_000)).toBe(1)
    expect((await allJobs()).map((r) => r.status)).toEqual(['failed'])
  })

  it('retries at the moment a RetryJob names, without reporting it as an error', async () => {
    let calls = 0
    jobs.register('scheduled', async () => {
      if (++calls === 1) throw new RetryJob(42_000, 'receiver answered 503')
    })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'scheduled', payload: {} })
    expect(await jobs.runDue()).toEqual({ succeeded: 0, failed: 1, lost: 0 })
    expect(await jobs.get(id)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'RetryJob: receiver answered 503', runAt: new Date(clock.now().getTime() + 42_000).toISOString() })
    expect(errors).toEqual([])
    clock.advance(42_000)
    expect((await jobs.runDue()).succeeded).toBe(1)
  })

  it('gives a deferred job back without counting the attempt', async () => {
    const attempts: number[] = []
    jobs.register('deferred', async (_p, job) => {
      attempts.push(job.attempt)
      if (attempts.length < 3) throw new DeferJob(500)
    })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'deferred', payload: {} })
    await jobs.runDue()
    expect(await jobs.get(id)).toMatchObject({ status: 'pending', attempts: 0 })
    clock.advance(500)
    await jobs.runDue()
    clock.advance(500)
    await jobs.runDue()
    expect(attempts).toEqual([1, 1, 1])
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 1 })
  })

  it('refills a slot as soon as its job finishes: one slow job never holds back the others', async () => {
    let release: () => void = () => {}
    const done: number[] = []
    jobs.register<{ n: number }>(
      'pooled',
      (payload) => (payload.n === 0 ? new Promise<void>((r) => (release = r)) : Promise.resolve(void done.push(payload.n))),
      { concurrency: 2 },
    )
    for (let n = 0; n < 6; n++) await jobs.enqueue(db.kysely, { kind: 'pooled', payload: { n } })
    const run = jobs.runDue()
    await expect.poll(() => done.length).toBe(5) // all through the one free slot while job 0 hangs
    release()
    expect(await run).toEqual({ succeeded: 6, failed: 0, lost: 0 })
  })

  it('starts each job on a turn of the event loop of its own, even jobs that never wait for I/O', async () => {
    // A request arriving meanwhile is read on a turn of the loop: count the turns, and note the count at each start.
    let turn = 0
    let ticking = true
    const tick = () => {
      turn++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const startedOn: number[] = []
    jobs.register('no-io', async () => void startedOn.push(turn), { concurrency: 4 })
    for (let i = 0; i < 12; i++) await jobs.enqueue(db.kysely, { kind: 'no-io', payload: i })
    expect(await jobs.runDue()).toEqual({ succeeded: 12, failed: 0, lost: 0 })
    ticking = false
    // On SQLite every statement is synchronous: without turns, the twelve ran in one, slots refilled as they finished.
    expect(startedOn).toHaveLength(12)
    for (let i = 1; i < startedOn.length; i++) expect(startedOn[i], String(startedOn)).toBeGreaterThan(startedOn[i - 1]!)
  })

  it('starts the jobs claimed together of a kind with startsPerTurn in groups, a turn per group', async () => {
    // Deliveries: one start per turn capped them at the loop's turns a second, which fall as requests fill each turn,
    // so under steady traffic their queue grew however few events were published.
    let turn = 0
    let ticking = true
    const tick = () => {
      turn++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const startedOn: number[] = []
    jobs.register('grouped', async () => void startedOn.push(turn), { concurrency: 10, startsPerTurn: 4 })
    for (let i = 0; i < 10; i++) await jobs.enqueue(db.kysely, { kind: 'grouped', payload: i })
    expect(await jobs.runDue()).toEqual({ succeeded: 10, failed: 0, lost: 0 })
    ticking = false
    // One claim of ten: three groups (4, 4, 2), each on a turn of its own, in the order claimed.
    const groups = [...new Set(startedOn)]
    expect(groups, String(startedOn)).toHaveLength(3)
    expect(groups.map((g) => startedOn.filter((t) => t === g).length)).toEqual([4, 4, 2])
    for (let i = 1; i < groups.length; i++) expect(groups[i]).toBeGreaterThan(groups[i - 1]!)
  })

  it('wake() starts due work at once, without waiting for a poll', async () => {
    const ran: string[] = []
    jobs.register<string>('woken', async (p) => void ran.push(p))
    await jobs.enqueue(db.kysely, { kind: 'woken', payload: 'now' })
    jobs.wake()
    await expect.poll(() => ran).toEqual(['now'])
    await jobs.stop()
  })

  it('keeps claiming after a claim that found no free slot', async () => {
    let release: () => void = () => {}
    let runs = 0
    jobs.register('one-at-a-time', () => (runs++ === 0 ? new Promise<void>((r) => (release = r)) : Promise.resolve()), { concurrency: 1 })
    for (let i = 0; i < 3; i++) await jobs.enqueue(db.kysely, { kind: 'one-at-a-time', payload: {} })
    const run = jobs.runDue()
    await expect.poll(() => runs).toBe(1)
    jobs.wake() // no slot is free: this claim ends at once
    release()
    expect(await run).toEqual({ succeeded: 3, failed: 0, lost: 0 })
  })
})
