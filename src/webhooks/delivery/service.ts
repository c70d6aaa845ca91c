// The delivery module's door (DeliveryService), and what changes a subscription's deliveries as a whole: resuming a
// suspended subscription (its held notifications go out again, each with a fresh retry policy), replaying chosen
// notifications (one attempt each, now), cancelling a deleted subscription's undelivered ones, the health check of a
// suspended subscription, and the test notification. The other parts of the feature (subscriptions, events, the
// delivery log, replays) reach notifications, events and attempts only through it.
import { randomUUID } from 'node:crypto'
import type { Executor } from '../../platform/db/database.js'
import type { Jobs } from '../../platform/jobs/service.js'
import type { JobHandler } from '../../platform/jobs/types.js'
import { TEST_EVENT } from '../catalog.js'
import type { Subscription } from '../types.js'
import { batchLoader, groupCommit } from './batching.js'
import { delivered, record, send, writeDelivered, type DeliveryDeps, type Outcome } from './deliver.js'
import { HEALTH_CHECK_INTERVAL_MS, enqueueDelivery, enqueueHealthCheck, type HealthCheckJob } from './jobs.js'
import { writeEvent, type StoredEvent } from './outbox.js'
import * as repo from './repository.js'
import { withOffset } from './message.js'

export type { StoredEvent }
export type { AttemptRow, LogFilter, NotificationRow, WindowSelection } from './repository.js'

export const TEST_MESSAGE = 'This is a test notification from finapi: your webhook receives and can verify notifications.'

type Selected = Pick<repo.NotificationRow, 'id' | 'generation' | 'attempts'>

/** Starts a new delivery of each notification under its next generation; `single`: one attempt, no retries. */
async function redeliver(deps: DeliveryDeps, trx: Executor, rows: readonly Selected[], single: boolean, now: string): Promise<number> {
  let count = 0
  for (const n of rows) {
    if (!(await repo.renew(trx, n, now))) continue
    await enqueueDelivery(deps.jobs, trx, { n: n.id, g: n.generation + 1, b: n.attempts, o: 0, ...(single ? { one: true } : {}) })
    count++
  }
  return count
}

/** SUSPENDED → ACTIVE, and every held notification is sent again; false when it was not suspended. */
async function resume(deps: DeliveryDeps, webhookId: string, reason: string): Promise<boolean> {
  const now = deps.clock.now().toISOString()
  const resumed = await deps.db.transaction().execute(async (trx) => {
    if (!(await deps.store.moveStatus(trx, webhookId, ['SUSPENDED'], 'ACTIVE', null, now))) return false
    await redeliver(deps, trx, await repo.notificationsInStatus(trx, webhookId, ['SUSPENDED']), false, now)
    return true
  })
  if (resumed) {
    deps.subscriptions.forget(webhookId)
    deps.onStatusChange({ webhookId, status: 'ACTIVE', reason })
    deps.jobs.wake()
  }
  return resumed
}

/** One immediate attempt of each notification selected (a replay); returns how many. */
async function replay(deps: DeliveryDeps, select: (trx: Executor) => Promise<Selected[]>): Promise<number> {
  const now = deps.clock.now().toISOString()
  const count = await deps.db.transaction().execute(async (trx) => redeliver(deps, trx, await select(trx), true, now))
  if (count > 0) deps.jobs.wake()
  return count
}

/** POSTs an empty body to a suspended subscription's healthCheckUrl; a 200 resumes it, anything else checks again later. */
export function healthCheckHandler(deps: DeliveryDeps): JobHandler<HealthCheckJob> {
  return async ({ w }) => {
    const sub = await deps.store.find(w)
    if (!sub || sub.status !== 'SUSPENDED' || !sub.healthCheckUrl) return
    const res = await deps.http.request({ url: sub.healthCheckUrl, method: 'POST', headers: { 'content-length': '0', 'user-agent': deps.userAgent, 'v-c-webhook-id': sub.id }, body: '' })
    if (res.ok && res.status === 200 && (await resume(deps, sub.id, 'the health check answered 200'))) return
    await enqueueHealthCheck(deps.jobs, deps.db, sub.id, new Date(deps.clock.now().getTime() + HEALTH_CHECK_INTERVAL_MS))
  }
}

export interface TestResult {
  eventDate: string
  eventType: string
  organizationId: string
  payloads: { testPayload: { message: string } }
  productId: string
  requestType: string
  retryNumber: number
  transactionTraceId: string
  webhookId: string
  deliveryStatus: 'DELIVERED' | 'RETRY' | 'FAILED'
  responseCode?: number
}

/**
 * The test notification (POST /notification-subscriptions/v1/webhooks/{id}): written like any notification, its first
 * attempt made during the call (whatever the subscription's status), its retries through the outbox by the policy.
 * A delivered test resumes a suspended subscription (the way back for one without a healthCheckUrl).
 */
/** The test notification's event: the test message, under the subscription's first product. */
function testEvent(sub: Subscription, nowIso: string, source: string): StoredEvent & { payload: { data: { message: string }; organizationId: string } } {
  const productId = sub.products[0]?.productId ?? 'webhooks'
  const payload = { data: { message: TEST_MESSAGE }, organizationId: sub.organizationId }
  return { id: randomUUID(), organizationId: sub.organizationId, productId, eventType: TEST_EVENT, payload, source, eventDate: nowIso }
}

async function sendTest(deps: DeliveryDeps, sub: Subscription, timeoutMs: number): Promise<TestResult> {
  const now = deps.clock.now()
  const nowIso = now.toISOString()
  const event = testEvent(sub, nowIso, 'test')
  const { productId, payload } = event
  const active = { ...sub, status: 'ACTIVE' as const }
  // Written without a delivery job: this call makes the first attempt itself.
  const [notificationId] = await deps.db.transaction().execute((trx) => writeEvent(undefined, trx, event, [active], nowIso))
  const n = { id: notificationId!, generation: 0 }
  const ctx: repo.DeliveryContext = {
    notification: { id: n.id, event_id: event.id, webhook_id: sub.id, organization_id: sub.organizationId, product_id: productId, event_type: TEST_EVENT, status: 'PENDING', attempts: 0, generation: 0, next_attempt_at: nowIso, last_attempt_at: null, delivered_at: null, created_at: nowIso, updated_at: nowIso },
    event: { organization_id: sub.organizationId, product_id: productId, event_type: TEST_EVENT, payload: JSON.stringify(payload), event_date: nowIso },
  }
  const outcome: Outcome = await send(deps, ctx, active, 1, timeoutMs)
  // No job made this attempt: a retry is a new delivery job, from the policy's second place.
  const retry = await record(deps, n, active, outcome, { position: 1, single: false }, { done: async () => {}, retry: (trx, wait) => enqueueDelivery(deps.jobs, trx, { n: n.id, g: 0, b: 1, o: 1 }, new Date(deps.clock.now().getTime() + wait)) })
  if (delivered(outcome) && sub.status === 'SUSPENDED') await resume(deps, sub.id, 'a test notification was delivered')
  return {
    eventDate: withOffset(nowIso),
    eventType: TEST_EVENT,
    organizationId: sub.organizationId,
    payloads: { testPayload: { message: TEST_MESSAGE } },
    productId,
    requestType: 'NEW',
    retryNumber: 0,
    transactionTraceId: outcome.traceId,
    webhookId: sub.id,
    deliveryStatus: delivered(outcome) ? 'DELIVERED' : retry !== undefined ? 'RETRY' : 'FAILED',
    ...(outcome.statusCode === null ? {} : { responseCode: outcome.statusCode }),
  }
}

/**
 * A test notification written like any event's (the console's test send): a row, with a delivery job when the
 * subscription is ACTIVE (HELD while INACTIVE, SUSPENDED while suspended, as any notification), which the jobs
 * facility delivers. Returns its id.
 */
async function queueTest(deps: DeliveryDeps, sub: Subscription, source: string): Promise<string> {
  const nowIso = deps.clock.now().toISOString()
  const [notificationId] = await deps.db.transaction().execute((trx) => writeEvent(deps.jobs, trx, testEvent(sub, nowIso, source), [sub], nowIso))
  deps.jobs.wake()
  return notificationId!
}

/** What a replay sends again: the notifications of the trace ids given, or of the ids given, or those in a status within a window. */
export type ReplaySelection = { traceIds: readonly string[] } | { notificationIds: readonly string[] } | Omit<repo.WindowSelection, 'webhookId'>

function selected(trx: Executor, webhookId: string, selection: ReplaySelection): Promise<Selected[]> {
  if ('traceIds' in selection) return repo.notificationsByTraceIds(trx, webhookId, selection.traceIds)
  if ('notificationIds' in selection) return selection.notificationIds.length === 0 ? Promise.resolve([]) : repo.notificationsByIds(trx, webhookId, selection.notificationIds)
  return repo.notificationsInWindow(trx, { ...selection, webhookId })
}

export interface DeliveryService {
  /** Writes an event and a notification per subscriber in `trx`, with delivery jobs unless `send` is false (the test call sends itself). */
  writeEvent(trx: Executor, event: StoredEvent, subscribers: readonly Subscription[], now: string, options?: { send?: boolean }): Promise<string[]>
  /** SUSPENDED → ACTIVE, and every held notification is sent again; false when it was not suspended. */
  resume(webhookId: string, reason: string): Promise<boolean>
  /** One immediate attempt of each notification selected; returns how many. */
  replay(webhookId: string, selection: ReplaySelection): Promise<number>
  /** The test notification: its first attempt made now (see sendTest). */
  sendTest(sub: Subscription, timeoutMs: number): Promise<TestResult>
  /** A test notification delivered by a job, like any other (see queueTest); its id. */
  queueTest(sub: Subscription, source: string): Promise<string>
  /** A deleted subscription's undelivered notifications are cancelled in the deleting transaction. */
  cancelUndelivered(trx: Executor, webhookId: string, now: string): Promise<number>
  /** Forgets the delivery path's remembered copy of a subscription that changed. */
  forget(webhookId: string): void
  /** The delivery log: notifications, newest first. */
  notifications(filter: repo.LogFilter): Promise<repo.NotificationRow[]>
  notification(id: string): Promise<repo.NotificationRow | undefined>
  attempts(notificationId: string): Promise<repo.AttemptRow[]>
  /** The attempts of several notifications, in one query. */
  attemptsOfMany(notificationIds: readonly string[]): Promise<repo.AttemptRow[]>
  /** Deletes finished notifications (and their events and attempts) older than `before`. */
  prune(before: string): Promise<number>
}

export function createDeliveryService(deps: DeliveryDeps): DeliveryService {
  return {
    writeEvent: (trx, event, subscribers, now, options = {}) => writeEvent(options.send === false ? undefined : deps.jobs, trx, event, subscribers, now),
    resume: (webhookId, reason) => resume(deps, webhookId, reason),
    replay: (webhookId, selection) => replay(deps, (trx) => selected(trx, webhookId, selection)),
    sendTest: (sub, timeoutMs) => sendTest(deps, sub, timeoutMs),
    queueTest: (sub, source) => queueTest(deps, sub, source),
    cancelUndelivered: (trx, webhookId, now) => repo.cancelUndelivered(trx, webhookId, now),
    forget: (webhookId) => deps.subscriptions.forget(webhookId),
    notifications: (filter) => repo.listNotifications(deps.db, filter),
    notification: (id) => repo.findNotification(deps.db, id),
    attempts: (notificationId) => repo.attemptsOf(deps.db, notificationId),
    attemptsOfMany: (notificationIds) => repo.attemptsOfMany(deps.db, notificationIds),
    prune: (before) => repo.pruneFinished(deps.db, before),
  }
}

/** The delivery path's dependencies, with its batched loads and group commit built over the database. */
export function createDeliveryDeps(deps: Omit<DeliveryDeps, 'load' | 'commit' | 'jobs'> & { jobs: Pick<Jobs, 'enqueue' | 'wake' | 'completeAll'>; parallelCommits: number }): DeliveryDeps {
  const { parallelCommits: parallel, ...rest } = deps
  return {
    ...rest,
    load: batchLoader((ids: string[]) => repo.loadForDelivery(deps.db, ids)),
    commit: groupCommit(deps.db, { parallel, writeData: writeDelivered({ clock: deps.clock, jobs: deps.jobs }) }),
  }
}
