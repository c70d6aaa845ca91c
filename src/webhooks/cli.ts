// `finapi events publish <file>` and `finapi webhooks deliveries`: an operator's invoicing system (or anyone with the
// database) publishes events from a file, all or nothing; the delivery log is read without going through the API.
// The caller (src/cli.ts) opens the database and turns a WebhookUsageError into its usage message.
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { NotificationStatus } from '../platform/db/schema.js'
import { EventRefused } from './events/service.js'
import type { WebhooksServices } from './feature.js'
import type { EventInput } from './types.js'

export const WEBHOOKS_USAGE = `  events publish <file>       publish events from a JSON file (an event or an array of them) or NDJSON, all or
                              nothing: {eventType, organizationId, data, preferences?, metadata?, eventDate?};
                              servers on this database deliver them at their next poll (JOBS_POLL_MS)
  webhooks deliveries [--webhook <id>] [--status <status>] [--limit <n>]
                              the delivery log, newest first: notification, webhook, event type, status, attempts
  webhooks deliveries --notification <id>
                              one notification's every attempt: trace id, retry, status code, result, duration,
                              the first bytes of the answer
`

export class WebhookUsageError extends Error {}

const STATUSES: readonly NotificationStatus[] = ['PENDING', 'RETRY', 'DELIVERED', 'FAILED', 'SUSPENDED', 'HELD', 'CANCELLED']

/** The events of a file: one JSON value (an event or an array), or one event per line. */
export function parseEvents(text: string): unknown[] {
  try {
    const value = JSON.parse(text) as unknown
    return Array.isArray(value) ? value : [value]
  } catch {
    return text.split('\n').flatMap((line, i) => {
      if (!line.trim()) return []
      try {
        return [JSON.parse(line) as unknown]
      } catch {
        throw new WebhookUsageError(`line ${i + 1} is not JSON`)
      }
    })
  }
}

function eventOf(value: unknown, index: number): EventInput {
  const e = value as Partial<Record<keyof EventInput, unknown>> | null
  const bad = (reason: string) => new WebhookUsageError(`event ${index + 1}: ${reason}`)
  if (!e || typeof e !== 'object') throw bad('is not an object')
  if (typeof e.eventType !== 'string') throw bad('eventType is required')
  if (typeof e.organizationId !== 'string') throw bad('organizationId is required')
  const date = e.eventDate === undefined ? undefined : new Date(String(e.eventDate))
  if (date && Number.isNaN(date.getTime())) throw bad('eventDate is not a date')
  return {
    eventType: e.eventType,
    organizationId: e.organizationId,
    data: e.data as EventInput['data'],
    ...(e.preferences ? { preferences: e.preferences as Record<string, unknown> } : {}),
    ...(e.metadata ? { metadata: e.metadata as Record<string, unknown> } : {}),
    ...(date ? { eventDate: date } : {}),
    source: 'cli',
  }
}

export async function runWebhooksCommand(command: 'events' | 'webhooks', args: string[], withServices: <T>(fn: (webhooks: WebhooksServices) => Promise<T>) => Promise<T>): Promise<void> {
  const out = (text: string) => process.stdout.write(text)
  if (command === 'events') {
    const [action, path] = args
    if (action !== 'publish' || !path) throw new WebhookUsageError('events takes: publish <file>')
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (err) {
      throw new WebhookUsageError(`cannot read ${path}: ${(err as Error).message}`)
    }
    const events = parseEvents(text).map(eventOf)
    const notifications = await withServices(async ({ events: publisher }) => {
      try {
        return await publisher.publishAll(events)
      } catch (err) {
        if (!(err instanceof EventRefused)) throw err
        throw new WebhookUsageError(`event ${err.index + 1}: ${err.refusal.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ')}; nothing was published`)
      }
    })
    return void out(`Published ${events.length} events: ${notifications} notifications, delivered by the servers on this database at their next poll.\n`)
  }

  const [action, ...rest] = args
  if (action !== 'deliveries') throw new WebhookUsageError('webhooks takes: deliveries [--webhook <id>] [--status <status>] [--limit <n>] | --notification <id>')
  let values
  try {
    values = parseArgs({ args: rest, options: { webhook: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, notification: { type: 'string' } } }).values
  } catch (err) {
    throw new WebhookUsageError((err as Error).message)
  }
  const status = values.status?.toUpperCase() as NotificationStatus | undefined
  if (status && !STATUSES.includes(status)) throw new WebhookUsageError(`--status must be one of ${STATUSES.join(', ')}`)
  const limit = values.limit === undefined ? 20 : Number(values.limit)
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 10_000)) throw new WebhookUsageError('--limit must be a whole number from 1 to 10000')
  await withServices(async ({ notifications }) => {
    if (values.notification) {
      let detail
      try {
        detail = await notifications.detail(values.notification, async () => true)
      } catch {
        throw new WebhookUsageError(`no notification ${values.notification}`)
      }
      out(`notification ${detail.notificationId}: ${detail.eventType} for ${detail.organizationId} (webhook ${detail.webhookId}), ${detail.status} after ${detail.attempts} attempt(s)\n`)
      out(['trace id\tretry\ttype\tstarted\tms\tstatus\tresult\terror\tanswer', ...detail.deliveries.map((d) => [d.transactionTraceId, d.retryNumber, d.requestType, d.startedAt, d.durationMs, d.statusCode ?? '-', d.result, d.error ?? '-', JSON.stringify(d.responseExcerpt ?? '')].join('\t'))].join('\n') + '\n')
      return
    }
    const rows = await notifications.list({ ...(values.webhook ? { webhookId: values.webhook } : {}), ...(status ? { status } : {}), limit })
    out(['notification\twebhook\torganization\tevent type\tstatus\tattempts\tcreated\tlast attempt', ...rows.map((n) => [n.notificationId, n.webhookId, n.organizationId, n.eventType, n.status, n.attempts, n.createdAt, n.lastAttemptAt ?? '-'].join('\t'))].join('\n') + '\n')
  })
}
