// `finapi events publish <file>` and `finapi webhooks list|deliveries`: an operator's invoicing system (or anyone with
// the database) publishes events from a file or standard input, all or nothing; subscriptions and the delivery log are
// read without going through the API. The command tree (src/cli/program.ts) opens the database for them.
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { CliError, group, integer, JSON_DESCRIPTION, JSON_FLAG, oneOf, printRows, say } from '../platform/cli/kit.js'
import type { NotificationStatus } from './tables.js'
import type { FeatureCommands } from '../platform/feature.js'
import { EventRefused, type EventService } from './events/service.js'
import type { WebhookSubscriptions } from './notification-subscriptions/service.js'
import type { NotificationLog } from './notifications/service.js'
import type { EventInput } from './types.js'

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
        throw new CliError(`line ${i + 1} is not JSON`)
      }
    })
  }
}

function eventOf(value: unknown, index: number): EventInput {
  const e = value as Partial<Record<keyof EventInput, unknown>> | null
  const bad = (reason: string) => new CliError(`event ${index + 1}: ${reason}`)
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

/** What the commands use of the feature's services (WebhooksServices). */
export interface WebhookCommandServices {
  events: Pick<EventService, 'publishAll'>
  subscriptions: Pick<WebhookSubscriptions, 'list'>
  notifications: NotificationLog
}

export type WithWebhooks = <T>(fn: (webhooks: WebhookCommandServices) => Promise<T>) => Promise<T>

/** A file's text, or standard input's with `-`. */
async function readInput(path: string): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8').catch((err: Error) => Promise.reject(new CliError(`cannot read ${path}: ${err.message}`)))
  if (process.stdin.isTTY) process.stderr.write('finapi: reading events from standard input; end with Ctrl-D\n')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function registerWebhooksCommands(program: Command, withServices: WithWebhooks): void {
  const events = group(program, 'events', 'webhook events: publish them for delivery to subscribers')
  events
    .command('publish')
    .summary('publish webhook events from a file or stdin')
    .description(
      'publish events from a JSON file (an event or an array of them) or NDJSON, all or nothing: {eventType, organizationId, data, ' +
        'preferences?, metadata?, eventDate?}; servers on this database deliver them at their next poll (JOBS_POLL_MS)',
    )
    .argument('<file>', 'the file, or - for standard input')
    .action(async (path: string) => {
      const events = parseEvents(await readInput(path)).map(eventOf)
      const notifications = await withServices(async ({ events: publisher }) => {
        try {
          return await publisher.publishAll(events)
        } catch (err) {
          if (!(err instanceof EventRefused)) throw err
          throw new CliError(`event ${err.index + 1}: ${err.refusal.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ')}; nothing was published`)
        }
      })
      say(`Published ${events.length} events: ${notifications} notifications, delivered by the servers on this database at their next poll.`)
    })

  const webhooks = group(program, 'webhooks', "webhook subscriptions and the delivery log")
  webhooks
    .command('list')
    .summary("an organization's webhook subscriptions")
    .usage('--org <id> [--json]')
    .description("an organization's webhook subscriptions: id, name, status, URL, event types, created")
    .requiredOption('--org <id>', 'the organization')
    .option(JSON_FLAG, `${JSON_DESCRIPTION} (as GET /notification-subscriptions/v2/webhooks answers)`)
    .action(async (options: { org: string; json?: boolean }) => {
      const rows = await withServices(({ subscriptions }) => subscriptions.list(options.org, {}))
      printRows(rows, options.json, ['webhook', 'name', 'status', 'url', 'event types', 'created'], (w) => [w.webhookId, w.name, w.status, w.webhookUrl, w.products.flatMap((p) => p.eventTypes).join(' '), w.createdOn])
    })
  webhooks
    .command('deliveries')
    .summary('the webhook delivery log')
    .usage('[--webhook <id>] [--status <status>] [options] | --notification <id>')
    .description(
      "the delivery log, newest first: notification, webhook, event type, status, attempts; or one notification's every attempt " +
        '(--notification): trace id, retry, status code, result, duration, the first bytes of the answer',
    )
    .option('--webhook <id>', "only this subscription's")
    .option('--status <status>', `only those in this status: ${STATUSES.join(', ')}`, oneOf(STATUSES))
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 20)
    .option('--notification <id>', 'one notification and its every attempt')
    .option(JSON_FLAG, `${JSON_DESCRIPTION}; with --notification, one object with its deliveries`)
    .action(async (options: { webhook?: string; status?: NotificationStatus; limit: number; notification?: string; json?: boolean }) => {
      await withServices(async ({ notifications }) => {
        if (options.notification) {
          const detail = await notifications.detail(options.notification, async () => true).catch(() => Promise.reject(new CliError(`no notification ${options.notification}`)))
          if (options.json) return say(JSON.stringify(detail, null, 2))
          say(`notification ${detail.notificationId}: ${detail.eventType} for ${detail.organizationId} (webhook ${detail.webhookId}), ${detail.status} after ${detail.attempts} attempt(s)`)
          printRows(detail.deliveries, false, ['trace id', 'retry', 'type', 'started', 'ms', 'status', 'result', 'error', 'answer'], (d) => [d.transactionTraceId, d.retryNumber, d.requestType, d.startedAt, d.durationMs, d.statusCode, d.result, d.error, JSON.stringify(d.responseExcerpt ?? '')])
          return
        }
        const rows = await notifications.list({ ...(options.webhook ? { webhookId: options.webhook } : {}), ...(options.status ? { status: options.status } : {}), limit: options.limit })
        printRows(rows, options.json, ['notification', 'webhook', 'organization', 'event type', 'status', 'attempts', 'created', 'last attempt'], (n) => [n.notificationId, n.webhookId, n.organizationId, n.eventType, n.status, n.attempts, n.createdAt, n.lastAttemptAt])
      })
    })
}

export const webhooksCommands: FeatureCommands<WebhookCommandServices> = {
  register: (program, { run }) => registerWebhooksCommands(program, (fn) => run((webhooks) => fn(webhooks))),
}
