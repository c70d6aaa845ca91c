// Queuing a report for generation: a job in the same transaction as the instance's move to QUEUED, keyed by the
// instance and the moment it was queued, so each queueing makes one job whoever repeats it.
import type { Executor } from '../../platform/db/database.js'
import type { Jobs } from '../../platform/jobs/service.js'

export const REPORT_JOB = 'report.generate'

export interface ReportJob {
  instanceId: string
}

export async function enqueueGeneration(tx: Executor, jobs: Pick<Jobs, 'enqueue'>, instanceId: string, queuedAt: string, runAt?: Date): Promise<string> {
  const { id } = await jobs.enqueue<ReportJob>(tx, { kind: REPORT_JOB, payload: { instanceId }, runAt, idempotencyKey: `report:${instanceId}:${queuedAt}` })
  return id
}
