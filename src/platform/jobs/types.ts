// The jobs facility's public shapes. A handler gets the decoded payload and what it may need to know about
// the attempt; what it throws is stored as last_error and retried after the kind's backoff.
import type { JobStatus } from '../db/schema.js'

/** A caller's database handle or open transaction: enqueue writes the job there, so it commits with the caller's work. */
import type { Executor } from '../db/database.js'
export type { Executor }

export interface JobInfo {
  id: string
  kind: string
  /** This attempt's number, from 1. */
  attempt: number
  maxAttempts: number
  /** Aborted when this worker's lease lapses: another worker may then take the job, so stop work that is not done. */
  signal: AbortSignal
  /**
   * Extends the lease by the kind's leaseMs from now, while this worker still holds it: a long handler calls it
   * now and then (a heartbeat), so a short lease can still let a crashed worker's job go quickly. False when the
   * lease was already lost.
   */
  renewLease(): Promise<boolean>
  /**
   * Marks the job done through `executor`, the handler's own transaction, so that its work and the job's completion
   * commit together (a crash can no longer leave the work done and the job to run again). False when the claim was
   * lost. A handler that returns after calling it is not completed again by the runner.
   */
  complete(executor: Executor): Promise<boolean>
  /** Like complete(), but records a failed attempt and the next one `delayMs` from now (failed if none is left). */
  retry(executor: Executor, delayMs: number, reason: string): Promise<boolean>
}

export type JobHandler<P = unknown> = (payload: P, job: JobInfo) => Promise<void>

export interface KindOptions {
  /** Attempts before the job is marked failed (default 25, like graphile-worker). */
  maxAttempts?: number
  /** Delay in ms before the next attempt after `attempts` failed ones (default: e^min(attempts, 10) seconds). */
  backoff?: (attempts: number) => number
  /** How long a claim lasts (default 5 minutes); a worker that dies holding a job lets it go after this. */
  leaseMs?: number
  /**
   * How many jobs of the kind one process runs at once (default: the runner's batch size). Slots are refilled as
   * jobs finish, so one slow job holds one slot and never holds back the others.
   */
  concurrency?: number
  /**
   * How many of the kind's jobs claimed together may start on one turn of the event loop (default 1). Each job
   * otherwise waits for a turn of its own, so that jobs that never wait for I/O cannot hold back requests; a kind
   * whose handlers start by awaiting batched I/O (a load shared by the jobs started together, then the network)
   * starts many at once, or it could never start more jobs a second than the loop has turns under load.
   */
  startsPerTurn?: number
}

export interface EnqueueRequest<P = unknown> {
  kind: string
  payload: P
  /** Not before this moment (default now). */
  runAt?: Date
  /** A second enqueue with the same key is a no-op that returns the first job's id. */
  idempotencyKey?: string
  /** Overrides the kind's maxAttempts for this job. */
  maxAttempts?: number
}

export interface Enqueued {
  id: string
  /** false when the idempotency key named an existing job. */
  created: boolean
}

export interface RunSummary {
  succeeded: number
  /** Failed attempts, whether retried later or now failed for good. */
  failed: number
  /** Attempts whose lease was lost before they finished (their result was not recorded). */
  lost: number
}

export interface JobView {
  id: string
  kind: string
  payload: unknown
  status: JobStatus
  runAt: string
  attempts: number
  maxAttempts: number
  lastError: string | null
  leaseOwner: string | null
  leaseExpiresAt: string | null
  idempotencyKey: string | null
  finishedAt: string | null
}

export const DEFAULT_MAX_ATTEMPTS = 25
export const DEFAULT_LEASE_MS = 5 * 60_000

/** graphile-worker's retry curve: e^min(attempts, 10) seconds, about 2.7 s after the first failure, 6 h at most. */
export function exponentialBackoff(attempts: number): number {
  return Math.round(Math.exp(Math.min(attempts, 10)) * 1000)
}

/**
 * Thrown by a handler that wants its next attempt at a moment of its own choosing (a retry schedule kept as data by
 * the feature, a receiver's Retry-After) instead of the kind's backoff. The attempt counts as failed; after the
 * job's last attempt it is failed for good like any other.
 */
export class RetryJob extends Error {
  override name = 'RetryJob'
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Thrown by a handler that did not start its work and gives the job back: it runs again after `delayMs` and the
 * claim does not count as an attempt (a per-receiver limit was reached, say).
 */
export class DeferJob extends Error {
  override name = 'DeferJob'
  constructor(
    readonly delayMs: number,
    message = 'deferred',
  ) {
    super(message)
  }
}
