// Work later and again: features register a handler per job kind and enqueue jobs in their own transactions
// (so work that must happen is a row before it is attempted); each process polls for due jobs on the clock,
// claims them with a lease, and records success, a retry with backoff, or failure after the last attempt.
// Several processes may work one database's queue; a job runs once per claim, and again only after a failure
// or a lapsed lease (its worker died), so handlers must tolerate being repeated (at-least-once).
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { every } from '../timers.js'
import { claimJobs, completeJob, deleteDoneJobs, failAbandoned, failJob, findJob, insertJob, renewJob, type JobRow } from './repository.js'
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_ATTEMPTS,
  exponentialBackoff,
  type Enqueued,
  type EnqueueRequest,
  type Executor,
  type JobHandler,
  type JobView,
  type KindOptions,
  type RunSummary,
} from './types.js'

export interface Jobs {
  register<P>(kind: string, handler: JobHandler<P>, options?: KindOptions): void
  /** Writes the job through `executor` (the caller's handle or transaction). */
  enqueue<P>(executor: Executor, request: EnqueueRequest<P>): Promise<Enqueued>
  /** Claims and runs what is due now, batch after batch, until nothing registered here is due. */
  runDue(): Promise<RunSummary>
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
  /** How many jobs one claim takes; they run concurrently. */
  batchSize?: number
  /** A handler's failure (with its job) or a polling failure (without). */
  onError?: (err: unknown, job?: { id: string; kind: string; attempt: number }) => void
}

interface Registration {
  handler: JobHandler
  maxAttempts: number
  backoff: (attempts: number) => number
  leaseMs: number
}

const MAX_ERROR_LENGTH = 2_000

export function createJobs(deps: JobsDeps): Jobs {
  const { db, clock, owner } = deps
  const batchSize = deps.batchSize ?? 10
  const kinds = new Map<string, Registration>()
  const running = new Set<Promise<unknown>>()
  let stopPolling: (() => void) | undefined
  let stopping = false

  async function runOne(row: JobRow, reg: Registration, summary: RunSummary): Promise<void> {
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
    let error: unknown
    let ok = true
    try {
      await reg.handler(JSON.parse(row.payload) as unknown, { id: row.id, kind: row.kind, attempt: row.attempts, maxAttempts: row.max_attempts, signal: lease.signal, renewLease })
    } catch (err) {
      ok = false
      error = err
    } finally {
      leaseTimer.cancel()
    }
    const now = clock.now()
    let recorded: boolean
    if (ok) {
      recorded = await completeJob(db.kysely, held, now.toISOString())
      if (recorded) summary.succeeded++
    } else {
      deps.onError?.(error, { id: row.id, kind: row.kind, attempt: row.attempts })
      const retryAt = row.attempts >= row.max_attempts ? null : new Date(now.getTime() + reg.backoff(row.attempts)).toISOString()
      recorded = await failJob(db.kysely, held, { error: describe(error), retryAt, now: now.toISOString() })
      if (recorded) summary.failed++
    }
    if (!recorded) summary.lost++
  }

  /** Tracked so stop() can wait for a run in progress, claims and handlers included. */
  function track(run: Promise<RunSummary>): Promise<RunSummary> {
    const forget = () => void running.delete(run)
    running.add(run)
    run.then(forget, forget)
    return run
  }

  async function runById(id: string): Promise<RunSummary> {
    const summary: RunSummary = { succeeded: 0, failed: 0, lost: 0 }
    const job = await findJob(db.kysely, id)
    const reg = job && kinds.get(job.kind)
    if (!job || !reg) return summary
    const now = clock.now()
    const [row] = await claimJobs(db, { kind: job.kind, id, owner, now: now.toISOString(), leaseExpiresAt: new Date(now.getTime() + reg.leaseMs).toISOString(), limit: 1 })
    if (row) await runOne(row, reg, summary)
    return summary
  }

  async function runBatches(): Promise<RunSummary> {
    const summary: RunSummary = { succeeded: 0, failed: 0, lost: 0 }
    await failAbandoned(db.kysely, clock.now().toISOString())
    let more: boolean
    do {
      more = false
      for (const [kind, reg] of kinds) {
        const now = clock.now()
        const claimed = await claimJobs(db, {
          kind,
          owner,
          now: now.toISOString(),
          leaseExpiresAt: new Date(now.getTime() + reg.leaseMs).toISOString(),
          limit: batchSize,
        })
        if (claimed.length === batchSize) more = true
        await Promise.all(claimed.map((row) => runOne(row, reg, summary)))
      }
    } while (more && !stopping)
    return summary
  }

  return {
    register(kind, handler, options = {}) {
      if (kinds.has(kind)) throw new Error(`job kind ${kind} is already registered`)
      kinds.set(kind, {
        handler: handler as JobHandler,
        maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        backoff: options.backoff ?? exponentialBackoff,
        leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
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
    runDue: () => track(runBatches()),
    runJob: (id) => track(runById(id)),
    start(pollMs) {
      if (stopPolling) throw new Error('jobs polling is already started; stop() it first')
      stopping = false
      stopPolling = every(clock, pollMs, () => track(runBatches()), (err) => deps.onError?.(err))
    },
    async stop() {
      stopping = true
      stopPolling?.()
      stopPolling = undefined
      await Promise.allSettled([...running])
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
