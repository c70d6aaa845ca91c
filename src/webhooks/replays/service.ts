// Replays: a replay selects notifications of one subscription — by the trace ids of their attempts, or by status
// (FAILED, RETRY, or HELD while inactive) in a window of at most 24 hours within the last 30 days, or in the last n
// hours — and the delivery module sends each again once, now.
import type { Clock } from '../../platform/clock.js'
import type { NotificationStatus } from '../tables.js'
import { invalid, type ErrorDetail } from '../../platform/errors.js'
import type { DeliveryService } from '../delivery/service.js'
import type { ReplayBody } from './schemas.js'

export interface Replays {
  /** Sends the selected notifications of the subscription again; returns how many. invalid() names every problem. */
  replay(webhookId: string, body: ReplayBody): Promise<number>
  /** Sends these notifications of the subscription again (the console's replay of one, attempts or none); how many. */
  replayNotifications(webhookId: string, notificationIds: readonly string[]): Promise<number>
}

const DAY = 86_400_000
const REPLAY_STATUSES: readonly NotificationStatus[] = ['FAILED', 'RETRY', 'HELD']

/** ISO 8601, or the reference's `yyyy-mm-dd hh:mm:ss.ms`; without an offset it is UTC. */
function parseTime(text: string): number {
  const iso = text.trim().replace(' ', 'T')
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`)
}

async function replayNotifications(deps: { delivery: Pick<DeliveryService, 'replay'>; clock: Clock }, webhookId: string, body: ReplayBody): Promise<number> {
  const details: ErrorDetail[] = []
  const { byTransactionTraceIdentifiers: traceIds, byDeliveryStatus: byStatus } = body
  if ((traceIds === undefined) === (byStatus === undefined)) throw invalid([{ field: 'byTransactionTraceIdentifiers', reason: 'give byTransactionTraceIdentifiers or byDeliveryStatus, one of them' }])
  if (traceIds) {
    if (traceIds.length === 0) throw invalid([{ field: 'byTransactionTraceIdentifiers', reason: 'must name at least one trace id' }])
    return deps.delivery.replay(webhookId, { traceIds })
  }
  const s = byStatus!
  const status = s.status?.toUpperCase() as NotificationStatus | undefined
  if (!status || !REPLAY_STATUSES.includes(status)) details.push({ field: 'byDeliveryStatus.status', reason: 'must be FAILED, RETRY or HELD' })
  const now = deps.clock.now().getTime()
  let from = NaN
  let to = NaN
  if (s.hoursBack !== undefined) {
    const hours = typeof s.hoursBack === 'number' ? s.hoursBack : /^\d+$/.test(s.hoursBack) ? Number(s.hoursBack) : NaN
    if (s.startTime !== undefined || s.endTime !== undefined) details.push({ field: 'byDeliveryStatus.hoursBack', reason: 'give hoursBack or startTime and endTime, not both' })
    else if (!(Number.isInteger(hours) && hours >= 1 && hours <= 720)) details.push({ field: 'byDeliveryStatus.hoursBack', reason: 'must be a whole number of hours from 1 to 720' })
    else [from, to] = [now - hours * 3_600_000, now]
  } else {
    from = s.startTime === undefined ? NaN : parseTime(s.startTime)
    to = s.endTime === undefined ? NaN : parseTime(s.endTime)
    if (Number.isNaN(from)) details.push({ field: 'byDeliveryStatus.startTime', reason: 'is required (ISO 8601), unless hoursBack is given' })
    if (Number.isNaN(to)) details.push({ field: 'byDeliveryStatus.endTime', reason: 'is required (ISO 8601), unless hoursBack is given' })
    if (!Number.isNaN(from) && !Number.isNaN(to)) {
      if (to < from) details.push({ field: 'byDeliveryStatus.endTime', reason: 'must not be before startTime' })
      else if (to - from > DAY) details.push({ field: 'byDeliveryStatus.endTime', reason: 'must be at most 24 hours after startTime' })
      if (from < now - 30 * DAY) details.push({ field: 'byDeliveryStatus.startTime', reason: 'must be within the last 30 days' })
    }
  }
  if (details.length > 0) throw invalid(details)
  return deps.delivery.replay(webhookId, { statuses: [status!], from: new Date(from).toISOString(), to: new Date(to).toISOString(), ...(s.productId ? { productId: s.productId } : {}), ...(s.eventType ? { eventType: s.eventType } : {}) })
}

export function createReplays(deps: { delivery: Pick<DeliveryService, 'replay'>; clock: Clock }): Replays {
  return {
    replay: (webhookId, body) => replayNotifications(deps, webhookId, body),
    replayNotifications: (webhookId, notificationIds) => deps.delivery.replay(webhookId, { notificationIds }),
  }
}
