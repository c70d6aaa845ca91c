// The delivery job kinds and their payloads. A delivery job delivers one notification: its first attempt and, by
// RetryJob, every retry of its policy (the job's attempt number is its place in the schedule). A replay or a
// resumption starts a new job under a new generation of the notification.
import type { Executor } from '../../platform/db/database.js'
import type { Jobs } from '../../platform/jobs/service.js'

export const DELIVER_KIND = 'webhooks.deliver'
export const HEALTH_CHECK_KIND = 'webhooks.health-check'
/** The policy is enforced by the handler; the job's own bound only stops a job that keeps losing its worker. */
export const DELIVERY_JOB_MAX_ATTEMPTS = 250
/** How often a suspended subscription's healthCheckUrl is tried. */
export const HEALTH_CHECK_INTERVAL_MS = 60_000

export interface DeliveryJob {
  /** The notification. */
  n: string
  /** Its generation this job delivers for. */
  g: number
  /** Attempts the notification had before this job: the job's attempt k is the notification's attempt b + k. */
  b: number
  /** Places of the retry policy used before this job (the test call's inline first attempt): attempt k is place o + k. */
  o: number
  /** A replay: one attempt, no retries. */
  one?: boolean
}

export interface HealthCheckJob {
  w: string
}

export function enqueueDelivery(jobs: Pick<Jobs, 'enqueue'>, executor: Executor, payload: DeliveryJob, runAt?: Date) {
  return jobs.enqueue(executor, { kind: DELIVER_KIND, payload, maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS, ...(runAt ? { runAt } : {}) })
}

export function enqueueHealthCheck(jobs: Pick<Jobs, 'enqueue'>, executor: Executor, webhookId: string, runAt: Date) {
  return jobs.enqueue(executor, { kind: HEALTH_CHECK_KIND, payload: { w: webhookId } satisfies HealthCheckJob, runAt, maxAttempts: 3 })
}
