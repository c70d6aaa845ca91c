// One delivery attempt, and what follows from its answer: a 2xx ends the notification DELIVERED; a 410 fails it and
// deactivates the subscription; any other failure retries by the subscription's policy (with jitter, and no sooner
// than a 429/503's Retry-After), and once the policy is exhausted the notification FAILS, or with deactivateFlag
// "true" is held and the subscription SUSPENDED until its health check answers. The attempt and its consequences are
// written in one transaction; the job then completes or retries (RetryJob) at the moment the policy names.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { DeferJob, type JobHandler, type JobInfo } from '../../platform/jobs/types.js'
import type { Jobs } from '../../platform/jobs/service.js'
import type { OutboundHttp } from '../../platform/outbound-http.js'
import type { WebhookKeyService } from '../keys/service.js'
import type { Subscription, SubscriptionReader, SubscriptionStore } from '../types.js'
import { HEALTH_CHECK_INTERVAL_MS, enqueueHealthCheck, type DeliveryJob } from './jobs.js'
import { attemptRequest } from './message.js'
import * as repo from './repository.js'
import { delayAfter, retryAfterMs, totalAttempts, withJitter } from './retry-policy.js'
import type { GroupCommit } from './batching.js'
import { Deferred, type SubscriptionSlots } from './slots.js'

/** How much of a receiver's answer the delivery log keeps. */
export const EXCERPT_BYTES = 256

export interface DeliveryDeps {
  db: Executor
  /** Reads a notification for delivery, those claimed together in one query (batching.ts). */
  load: (notificationId: string) => Promise<repo.DeliveryContext | undefined>
  /** Writes attempts' outcomes, many to one transaction (batching.ts); delivered ones by writeDelivered. */
  commit: GroupCommit<Delivered>
  clock: Clock
  jobs: Pick<Jobs, 'enqueue' | 'wake' | 'completeAll'>
  http: OutboundHttp
  keys: Pick<WebhookKeyService, 'signingKey'>
  subscriptions: SubscriptionReader
  /** The subscription status moves an attempt's outcome makes, in its own transaction. */
  store: Pick<SubscriptionStore, 'find' | 'moveStatus'>
  slots: SubscriptionSlots
  random: () => number
  /** Names this process in the delivery log. */
  worker: string
  userAgent: string
  /** Status changes the service made itself (a 410, a suspension), for the operator's log; never a body. */
  onStatusChange: (change: { webhookId: string; status: string; reason: string }) => void
}

export interface Outcome {
  traceId: string
  attemptNumber: number
  startedAt: Date
  durationMs: number
  keyId: string | null
  statusCode: number | null
  /** `delivered`, `http_error`, or why no answer came (`timeout`, `connection_failed`, `blocked_address`, `no_key`…). */
  result: string
  error: string | null
  excerpt: string | null
  retryAfterMs: number | undefined
}

export const delivered = (o: Outcome) => o.result === 'delivered'

/** Sends attempt `attemptNumber` of the notification to the subscription's URL, signed with its key. */
export async function send(deps: DeliveryDeps, ctx: repo.DeliveryContext, sub: Subscription, attemptNumber: number, timeoutMs?: number): Promise<Outcome> {
  const traceId = randomUUID()
  const startedAt = deps.clock.now()
  const base = { traceId, attemptNumber, startedAt, statusCode: null, excerpt: null, retryAfterMs: undefined }
  const key = await deps.keys.signingKey(sub.organizationId, sub.securityPolicy.config?.additionalConfig?.keyId)
  if (!key) return { ...base, durationMs: 0, keyId: null, result: 'no_key', error: 'the organization has no usable signing key (create one: POST /kms/egress/v2/keys-sym)' }
  const n = ctx.notification
  const request = attemptRequest({
    notificationId: n.id,
    webhookId: sub.id,
    organizationId: sub.organizationId,
    productId: ctx.event.product_id,
    eventType: ctx.event.event_type,
    eventDate: ctx.event.event_date,
    payload: JSON.parse(ctx.event.payload) as Record<string, unknown>,
    attemptNumber,
    transactionTraceId: traceId,
    key,
    now: startedAt,
    userAgent: deps.userAgent,
  })
  const t0 = performance.now()
  const res = await deps.http.request({ url: sub.webhookUrl, method: 'POST', headers: request.headers, body: request.body, ...(timeoutMs ? { timeoutMs } : {}) })
  const durationMs = Math.round(performance.now() - t0)
  if (!res.ok) return { ...base, durationMs, keyId: key.id, result: res.error.kind, error: res.error.message }
  const ok = res.status >= 200 && res.status < 300
  const throttled = res.status === 429 || res.status === 503
  return {
    ...base,
    durationMs,
    keyId: key.id,
    statusCode: res.status,
    result: ok ? 'delivered' : 'http_error',
    error: ok ? null : `the receiver answered ${res.status}`,
    // The receiver's bytes as text the log can store: PostgreSQL's text cannot hold U+0000.
    excerpt: res.body.length === 0 ? null : res.body.subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '\ufffd'),
    retryAfterMs: throttled ? retryAfterMs(res.headers['retry-after'], startedAt) : undefined,
  }
}

function attemptRow(deps: Pick<DeliveryDeps, 'worker'>, n: { id: string }, sub: { id: string }, o: Outcome): repo.AttemptRow {
  return {
    id: o.traceId,
    notification_id: n.id,
    webhook_id: sub.id,
    retry_number: o.attemptNumber - 1,
    request_type: o.attemptNumber === 1 ? 'NEW' : 'RETRY',
    key_id: o.keyId,
    started_at: o.startedAt.toISOString(),
    duration_ms: o.durationMs,
    status_code: o.statusCode,
    result: o.result,
    error: o.error,
    response_excerpt: o.excerpt,
    worker: deps.worker,
  }
}

export interface Place {
  /** The attempt's place in the retry policy (1 = the first attempt). */
  position: number
  /** A replay's single attempt: no retry follows. */
  single: boolean
}

/** How the job that made the attempt ends, in the attempt's own transaction. */
export interface Settle {
  done(trx: Executor): Promise<unknown>
  retry(trx: Executor, delayMs: number, reason: string): Promise<unknown>
  /** The job, when there is one: a delivered attempt's job is then completed with its batch's others. */
  job?: JobInfo
}

/** A delivered attempt, written with the others of its batch: the attempt row, the notification, the job. */
export interface Delivered {
  attempt: repo.AttemptRow
  notification: { id: string; generation: number; attempts: number; lastAttemptAt: string }
  job: JobInfo
}

/** Writes a batch of delivered attempts in three statements (attempts, notifications, jobs). */
export function writeDelivered(deps: Pick<DeliveryDeps, 'clock'> & { jobs: Pick<Jobs, 'completeAll'> }) {
  return async (trx: Executor, items: Delivered[]): Promise<void> => {
    await repo.insertAttempts(trx, items.map((i) => i.attempt))
    await repo.markDelivered(trx, items.map((i) => i.notification), deps.clock.now().toISOString())
    await deps.jobs.completeAll(trx, items.map((i) => i.job))
  }
}

/**
 * Writes the attempt and what follows from it, and settles the job (done, or retried after the policy's wait), in one
 * transaction. Returns the wait before the next attempt, or undefined when there is none.
 */
export async function record(deps: DeliveryDeps, n: Pick<repo.NotificationRow, 'id' | 'generation'>, sub: Subscription, o: Outcome, place: Place, settle: Settle): Promise<number | undefined> {
  const now = deps.clock.now()
  const nowIso = now.toISOString()
  let retryMs: number | undefined
  let change: { status: string; reason: string } | undefined
  if (delivered(o) && settle.job) {
    await deps.commit.add({ attempt: attemptRow(deps, n, sub, o), notification: { id: n.id, generation: n.generation, attempts: o.attemptNumber, lastAttemptAt: o.startedAt.toISOString() }, job: settle.job })
    return undefined
  }
  await deps.commit.run(async (trx) => {
    retryMs = undefined
    change = undefined
    await outcomeOf(trx)
    if (retryMs === undefined) await settle.done(trx)
    else await settle.retry(trx, retryMs, `attempt ${o.attemptNumber}: ${o.error ?? o.result}`)
  })
  if (change) {
    deps.subscriptions.forget(sub.id)
    deps.onStatusChange({ webhookId: sub.id, ...change })
  }
  return retryMs

  async function outcomeOf(trx: Executor): Promise<void> {
    await repo.insertAttempt(trx, attemptRow(deps, n, sub, o))
    const mark = (status: repo.NotificationRow['status'], extra: Partial<repo.NotificationRow> = {}) =>
      repo.updateNotification(trx, n.id, n.generation, { status, attempts: o.attemptNumber, last_attempt_at: o.startedAt.toISOString(), next_attempt_at: null, updated_at: nowIso, ...extra })
    if (delivered(o)) return void (await mark('DELIVERED', { delivered_at: nowIso }))
    if (o.statusCode === 410) {
      if (!(await mark('FAILED'))) return
      const reason = 'the receiver answered 410 Gone'
      if (await deps.store.moveStatus(trx, sub.id, ['ACTIVE', 'SUSPENDED'], 'INACTIVE', reason, nowIso)) change = { status: 'INACTIVE', reason }
      return
    }
    const gap = place.single ? undefined : delayAfter(sub.retryPolicy, place.position)
    if (gap !== undefined) {
      const wait = Math.max(withJitter(gap, deps.random), o.retryAfterMs ?? 0)
      if (!(await mark('RETRY', { next_attempt_at: new Date(now.getTime() + wait).toISOString() }))) return
      retryMs = wait
      return
    }
    if (sub.retryPolicy.deactivateFlag === 'true' && !place.single) {
      if (!(await mark('SUSPENDED'))) return
      const reason = `notification ${n.id} failed every attempt of the retry policy`
      if (await deps.store.moveStatus(trx, sub.id, ['ACTIVE'], 'SUSPENDED', reason, nowIso)) {
        change = { status: 'SUSPENDED', reason }
        if (sub.healthCheckUrl) await enqueueHealthCheck(deps.jobs, trx, sub.id, new Date(now.getTime() + HEALTH_CHECK_INTERVAL_MS))
      }
      return
    }
    await mark('FAILED')
  }
}

/** The delivery job: loads the notification, stands down if it is not its to deliver, attempts and records. */
export function deliveryHandler(deps: DeliveryDeps): JobHandler<DeliveryJob> {
  return async (p, job) => {
    const ctx = await deps.load(p.n)
    if (!ctx) return
    const n = ctx.notification
    if (n.generation !== p.g || (n.status !== 'PENDING' && n.status !== 'RETRY')) return
    const sub = await deps.subscriptions.find(n.webhook_id)
    const now = deps.clock.now().toISOString()
    if (!sub) return void (await repo.updateNotification(deps.db, n.id, n.generation, { status: 'CANCELLED', next_attempt_at: null, updated_at: now }))
    // An inactive subscription's notifications are kept (HELD, for a replay); a suspended one's wait for it to resume.
    if (sub.status !== 'ACTIVE') return void (await repo.updateNotification(deps.db, n.id, n.generation, { status: sub.status === 'SUSPENDED' ? 'SUSPENDED' : 'HELD', next_attempt_at: null, updated_at: now }))
    const position = p.o + job.attempt
    // Attempts lost with a worker that died count too: the policy bounds what a receiver can see.
    if (position > (p.one ? p.o + 1 : totalAttempts(sub.retryPolicy))) return void (await repo.updateNotification(deps.db, n.id, n.generation, { status: 'FAILED', next_attempt_at: null, updated_at: now }))

    let release
    try {
      release = await deps.slots.acquire(sub.id)
    } catch (err) {
      if (err instanceof Deferred) throw new DeferJob(250 + Math.floor(deps.random() * 500), err.message)
      throw err
    }
    let outcome: Outcome | undefined
    try {
      outcome = await send(deps, ctx, sub, p.b + job.attempt)
    } finally {
      release(outcome?.durationMs ?? 0, outcome?.result === 'timeout')
    }
    await record(deps, n, sub, outcome, { position, single: p.one === true }, { done: (trx) => job.complete(trx), retry: (trx, wait, reason) => job.retry(trx, wait, reason), job })
  }
}
