// The report engine's outcomes as this project's own webhook events (product finapiReporting): a report COMPLETED,
// found NO_DATA, or ended in ERROR. The engine calls its onReportFinished hook inside the transaction that records
// the outcome; publishing through that transaction makes the event and its deliveries commit with it (an outbox).
// Deliveries start at the next poll (JOBS_POLL_MS), since the hook cannot know when the engine commits.
import type { Executor } from '../../platform/db/database.js'
import { REPORT_EVENTS } from '../catalog.js'
import type { EventPublisher } from '../types.js'

/**
 * What the engine tells of a report that ended, in the transaction that records it: the part of the report engine's
 * event this feature reads (the composition root passes the engine's event in, so neither feature imports the other).
 */
export interface FinishedReport {
  eventId: string
  type: 'COMPLETED' | 'NO_DATA' | 'ERROR'
  organizationId: string
  /** Which run of the report ended (a retry is a new run). */
  run: number
  occurredAt: string
  /** The report as a search shows it: the event's data. */
  report: object
}

const EVENT_OF: Record<FinishedReport['type'], string> = { COMPLETED: REPORT_EVENTS.completed, NO_DATA: REPORT_EVENTS.noData, ERROR: REPORT_EVENTS.error }

export async function publishReportEvent(events: Pick<EventPublisher, 'publish'>, report: FinishedReport, tx: Executor): Promise<void> {
  await events.publish(
    {
      eventType: EVENT_OF[report.type],
      organizationId: report.organizationId,
      data: { ...report.report, reportEventId: report.eventId, run: report.run },
      eventDate: new Date(report.occurredAt),
      source: 'report-engine',
    },
    tx,
  )
}
