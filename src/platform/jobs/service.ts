// Work later and again: features register a handler per job kind and enqueue jobs in their own transactions
// (so work that must happen is a row before it is attempted); each process polls for due jobs on the clock,
// claims them with a lease, and records success, a retry with backoff, or failure after the last attempt.
// Several processes may work one database's queue; a job runs once per claim, and again only after a failure
// or a lapsed lease (its worker died), so handlers must tolerate being repeated (at-least-once).
// Each kind runs in a pool of `concurrency` slots: a slot is refilled as soon as its job finishes, so one slow job
// holds one slot and never holds back the others, and a poll never waits for a straggler before the next one.
import type { Clock, Timer } from '../clock.js'
import { nextTurn } from '../timers.js'
import type { Db } from '../db/database.js'
import { claimJobs, completeJob, completeJobs, deferJob, deleteDoneJobs, failAbandoned, failJob, findJob, insertJob, renewJob, type JobRow } from './repository.js'
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_ATTEMPTS,
  DeferJob,
  RetryJob,
  exponentialBackoff,
  type Enqueued,
  type EnqueueRequest,
  type Executor,
  type JobHandler,
  type JobInfo,
  type JobView,
  type KindOptions,
  type RunSummary,
} from './types.js'

export interface Jobs {
  register<P>(kind: string, handler: JobHandler<P>, options?: KindOptions): void
  /** Writes the job through `executor` (the caller's handle or transaction). */
  enqueue<P>(executor: Executor, request: EnqueueRequest<P>): Promise<Enqueued>
  /** Claims and runs what is due now, refilling slots as jobs finish, until nothing registered here is due or running. */
  runDue(): Promise<RunSummary>
  /** Claims what is due now without waiting for it (after a commit that enqueued work, so it starts at once). */
  wake(): void
  /** JobInfo.complete() for many running jobs of this runner, in one statement through `executor`. */
  completeAll(executor: Executor, jobs: readonly JobInfo[]): Promise<void>
  /** Claims and runs one job now, if it is due (or its lease lapsed) and of a kind registered here (operator commands). */
  runJob(id: string): Promise<RunSummary>
  /** Polls every `pollMs` on the clock; a second start() without stop() throws. */
  start(pollMs: number): void
  /** Stops polling and waits for the handlers running now to finish. */
  stop(): Promise<void>
  get(id: string): Promise<JobView | undefined>
}

export interface JobsDeps {
  db: Pick<Db, 'kysely' | 'dialect'>
  clock: Clock
  /** Names this worker in lease_owner (e.g. host:pid:random); must differ between processes. */
  owner: string
  /** How many jobs one claim takes at most, and a kind's default concurrency. */
  batchSize?: number
  /** A handler's failure (with its job) or a polling failure (without). */
  onError?: (err: unknown, job?: { id: string; kind: string; attempt: number }) => void
}

interface Registration {
  handler: JobHandler
  maxAttempts: number
  backoff: (attempts: number) => number
  leaseMs: number
  concurrency: number
  startsPerTurn: number
}

interface Pool {
  inFlight: number
  /** The claim loop running now, if any: one per kind, so claims never race each other for the same slots. */
  pumping: Promise<Promise<void>[]> | undefined
  /** Set when a pump was asked for while one ran: the running one goes round again. */
  again: boolean
  /** The last claim took all it asked for, so more may be due: a finished job's slot is refilled at once. */
  saturated: boolean
  /** A poll asked, while a claim loop ran, for jobs whose worker died to be looked for too. */
  lapsedWanted: boolean
}

const MAX_ERROR_LENGTH = 2_000
/** Claims larger than this are split, so one statement never locks a large part of the queue. */
const MAX_CLAIM = 100

/** How many slots must be free before a finished job's slot is refilled at once (claims in batches). */
const refillAt = (reg: { concurrency: number }) => Math.max(1, Math.floor(reg.concurrency / 4))

export function createJobs(deps: JobsDeps): Jobs {
  const { db, clock, owner } = deps
  const batchSize = deps.batchSize ?? 10
  const kinds = new Map<string, Registration>()
  const pools = new Map<string, Pool>()
  /** Handlers running now. */
  const handlers = new Set<Promise<void>>()
  /** Claims, polls and runDue calls in progress, so stop() can wait for them too. */
  const tasks = new Set<Promise<unknown>>()
  const totals: RunSummary = { succeeded: 0, failed: 0, lost: 0 }
  /** What completeAll needs of a running job: its claim, and how to tell its run that it was settled. */
  const running = new WeakMap<JobInfo, { held: { id: string; attempts: number }; settled: (recorded: boolean) => void }>()
  let poller: Timer | undefined
  let stopping = false
  /**
   * Jobs start one per turn of the event loop, in the order they were claimed, whatever their kind. A job whose work
   * is all statements on SQLite (a report with no rows) never waits for I/O, and a finished job's slot is refilled in
   * the same chain of promises: without turns, a queue of such jobs would run to its end without letting one request
   * in. With them, a request waits for one job's first steps at most (or one group's, of a kind whose jobs wait for
   * I/O at once and start startsPerTurn together: one per turn would cap them at the loop's turns a second, which
   * fall under load, and a queue of them would then grow however few were due).
   */
  let turns: Promise<void> = Promise.resolve()
  const ownTurn = () => (turns = turns.then(nextTurn))

  async function runOne(row: JobRow, reg: Registration): Promise<void> {
    const held = { id: row.id, owner, attempts: row.attempts }
    const lease = new AbortController()
    const expire = () => lease.abort(new Error('job lease expired'))
    let leaseTimer = clock.setTimer(Date.parse(row.lease_expires_at!) - clock.now().getTime(), expire)
    const renewLease = async () => {
      if (lease.signal.aborted) return false
      const now = clock.now()
      const renewed = await renewJob(db.kysely, held, new Date(now.getTime() + reg.leaseMs).toISOString(), now.toISOString())
      if (renewed && !lease.signal.aborted) {
        leaseTimer.cancel()
        leaseTimer = clock.setTimer(reg.leaseMs, expire)
      }
      return renewed
    }
    // What the handler settled in its own transaction, if it did.
    let settled: 'done' | 'retry' | undefined
    let settledRecorded = false
    const info = {
      id: row.id,
      kind: row.kind,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      signal: lease.signal,
      renewLease,
      async complete(executor: Executor) {
        settled = 'done'
        return (settledRecorded = await completeJob(executor, held, clock.now().toISOString()))
      },
      async retry(executor: Executor, delayMs: number, reason: string) {
        settled = 'retry'
        const now = clock.now()
        const retryAt = row.attempts >= row.max_attempts ? null : new Date(now.getTime() + delayMs).toISOString()
        return (settledRecorded = await failJob(executor, held, { error: describe(reason), retryAt, now: now.toISOString() }))
      },
    }
    running.set(info, {
      held,
      settled: (recorded) => {
        settled = 'done'
        settledRecorded = recorded
      },
    })
    let error: unknown
    let ok = true
    try {
      await reg.handler(JSON.parse(row.payload) as unknown, info)
    } catch (err) {
      ok = false
      error = err
    } finally {
      leaseTimer.cancel()
    }
    if (ok && settled) {
      totals[settledRecorded ? (settled === 'done' ? 'succeeded' : 'failed') : 'lost']++
      return
    }
    const now = clock.now()
    let recorded: boolean
    if (ok) {
      recorded = await completeJob(db.kysely, held, now.toISOString())
      if (recorded) totals.succeeded++
    } else if (error instanceof DeferJob) {
      recorded = await deferJob(db.kysely, held, new Date(now.getTime() + error.delayMs).toISOString(), now.toISOString())
    } else {
      // A RetryJob is a planned retry (the handler recorded why); anything else is reported.
      if (!(error instanceof RetryJob)) deps.onError?.(error, { id: row.id, kind: row.kind, attempt: row.attempts })
      const delay = error instanceof RetryJob ? error.delayMs : reg.backoff(row.attempts)
      const retryAt = row.attempts >= row.max_attempts ? null : new Date(now.getTime() + delay).toISOString()
      recorded = await failJob(db.kysely, held, { error: describe(error), retryAt, now: now.toISOString() })
      if (recorded) totals.failed++
    }
    if (!recorded) totals.lost++
  }

  function pool(kind: string): Pool {
    let p = pools.get(kind)
    if (!p) pools.set(kind, (p = { inFlight: 0, pumping: undefined, again: false, saturated: false, lapsedWanted: false }))
    return p
  }

  /** Starts `row` once `turn` comes (its own turn of the event loop, or one shared with the others of its group). */
  function launch(kind: string, reg: Registration, row: JobRow, turn: Promise<void> = ownTurn()): Promise<void> {
    const p = pool(kind)
    p.inFlight++
    const run: Promise<void> = turn
      .then(() => runOne(row, reg))
      .catch((err) => deps.onError?.(err, { id: row.id, kind, attempt: row.attempts }))
      .finally(() => {
        p.inFlight--
        handlers.delete(run)
        // More was due at the last claim: refill now rather than at the next poll, once enough slots are free to make
        // the claim worth its statement (or none is running).
        if (!stopping && p.saturated && (reg.concurrency - p.inFlight >= refillAt(reg) || p.inFlight === 0)) track(pump(kind)).catch((err) => deps.onError?.(err))
      })
    handlers.add(run)
    return run
  }

  /** Fills the kind's free slots with due jobs; returns the runs it started. `lapsed`: also jobs whose worker died. */
  function pump(kind: string, lapsed = false): Promise<Promise<void>[]> {
    const p = pool(kind)
    const reg = kinds.get(kind)!
    if (p.pumping) {
      // The running loop goes round again if it has not ended; if it has, this starts the next one.
      p.again = true
      p.lapsedWanted ||= lapsed
      return p.pumping.then(() => (p.again ? pump(kind, lapsed) : []))
    }
    const claimLoop = async () => {
      const started: Promise<void>[] = []
      let lookForLapsed = lapsed
      do {
        p.again = false
        lookForLapsed ||= p.lapsedWanted
        p.lapsedWanted = false
        for (;;) {
          const limit = Math.min(reg.concurrency - p.inFlight, MAX_CLAIM)
          if (limit <= 0 || stopping) break
          const now = clock.now()
          const claimed = await claimJobs(db, { kind, owner, now: now.toISOString(), leaseExpiresAt: new Date(now.getTime() + reg.leaseMs).toISOString(), limit, lapsed: lookForLapsed })
          lookForLapsed = false
          p.saturated = claimed.length === limit
          // A turn per job, or per group of startsPerTurn jobs of a kind that allows it.
          for (let i = 0; i < claimed.length; i += reg.startsPerTurn) {
            const turn = ownTurn()
            for (const row of claimed.slice(i, i + reg.startsPerTurn)) started.push(launch(kind, reg, row, turn))
          }
          if (!p.saturated) break
        }
      } while (p.again && !stopping)
      return started
    }
    // Cleared asynchronously, after the assignment below, even when the loop ends without awaiting (no free slot).
    const pumping = claimLoop().finally(() => {
      p.pumping = undefined
    })
    p.pumping = pumping
    return pumping
  }

  const pumpAll = async (lapsed = false) => (await Promise.all([...kinds.keys()].map((kind) => pump(kind, lapsed)))).flat()

  /** Tracked so stop() can wait for work in progress. */
  function track<T>(work: Promise<T>): Promise<T> {
    const forget = () => void tasks.delete(work)
    tasks.add(work)
    work.then(forget, forget)
    return work
  }

  /** One job now, if it is due or its lease lapsed (an operator's command), in its kind's pool. */
  async function runById(id: string): Promise<RunSummary> {
    const before = { ...totals }
    const job = await findJob(db.kysely, id)
    const reg = job && kinds.get(job.kind)
    if (!job || !reg) return { succeeded: 0, failed: 0, lost: 0 }
    const now = clock.now()
    const [row] = await claimJobs(db, { kind: job.kind, id, owner, now: now.toISOString(), leaseExpiresAt: new Date(now.getTime() + reg.leaseMs).toISOString(), limit: 1, lapsed: true })
    if (row) await launch(job.kind, reg, row)
    return { succeeded: totals.succeeded - before.succeeded, failed: totals.failed - before.failed, lost: totals.lost - before.lost }
  }

  async function runUntilIdle(): Promise<RunSummary> {
    const before = { ...totals }
    await failAbandoned(db.kysely, clock.now().toISOString())
    for (let first = true; ; first = false) {
      await pumpAll(first)
      const pumping = [...pools.values()].flatMap((p) => (p.pumping ? [p.pumping] : []))
      if ((handlers.size === 0 && pumping.length === 0) || stopping) break
      await Promise.allSettled([...handlers, ...pumping])
    }
    return { succeeded: totals.succeeded - before.succeeded, failed: totals.failed - before.failed, lost: totals.lost - before.lost }
  }

  /** One poll: what is due now is started, and the poll waits for those runs only (a fake clock's tick awaits them). */
  async function poll(): Promise<void> {
    await failAbandoned(db.kysely, clock.now().toISOString())
    await Promise.allSettled(await pumpAll(true))
    // Jobs claimed before (a refill) that still wait for their turn start too (a fake clock's tick awaits them).
    await turns
  }

  return {
    register(kind, handler, options = {}) {
      if (kinds.has(kind)) throw new Error(`job kind ${kind} is already registered`)
      kinds.set(kind, {
        handler: handler as JobHandler,
        maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        backoff: options.backoff ?? exponentialBackoff,
        leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
        concurrency: Math.max(1, options.concurrency ?? batchSize),
        startsPerTurn: Math.max(1, Math.floor(options.startsPerTurn ?? 1)),
      })
    },
    async enqueue(executor, request) {
      const now = clock.now()
      return insertJob(executor, {
        kind: request.kind,
        payload: JSON.stringify(request.payload),
        runAt: (request.runAt ?? now).toISOString(),
        maxAttempts: request.maxAttempts ?? kinds.get(request.kind)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        idempotencyKey: request.idempotencyKey ?? null,
        now: now.toISOString(),
      })
    },
    runDue() {
      return track(runUntilIdle())
    },
    async completeAll(executor, jobs) {
      const entries = jobs.map((job) => running.get(job)).filter((e) => e !== undefined)
      const done = await completeJobs(executor, owner, entries.map((e) => e.held), clock.now().toISOString())
      for (const e of entries) e.settled(done.has(e.held.id))
    },
    wake() {
      if (!stopping) track(pumpAll()).catch((err) => deps.onError?.(err))
    },
    runJob: (id) => track(runById(id)),
    start(pollMs) {
      if (poller) throw new Error('jobs polling is already started; stop() it first')
      if (!(pollMs > 0)) throw new RangeError(`jobs: the poll interval must be positive, got ${pollMs}`)
      stopping = false
      // The next poll is scheduled before this one's work is awaited, so a slow job never delays it.
      const tick = async () => {
        poller = clock.setTimer(pollMs, tick)
        try {
          await track(poll())
        } catch (err) {
          deps.onError?.(err)
        }
      }
      poller = clock.setTimer(pollMs, tick)
    },
    async stop() {
      stopping = true
      poller?.cancel()
      poller = undefined
      while (handlers.size + tasks.size > 0) await Promise.allSettled([...handlers, ...tasks])
    },
    async get(id) {
      const row = await findJob(db.kysely, id)
      return row && toView(row)
    },
  }
}

/** A housekeeping task body: deletes done jobs finished more than `retentionMs` ago (failed ones stay). */
export function pruneDoneJobs(db: Pick<Db, 'kysely'>, clock: Clock, retentionMs = 7 * 24 * 3_600_000): Promise<number> {
  return deleteDoneJobs(db.kysely, new Date(clock.now().getTime() - retentionMs).toISOString())
}

function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text
}

function toView(row: JobRow): JobView {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as unknown,
    status: row.status,
    runAt: row.run_at,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    idempotencyKey: row.idempotency_key,
    finishedAt: row.finished_at,
  }
}
