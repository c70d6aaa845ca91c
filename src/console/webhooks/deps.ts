// What the webhook pages share: the webhooks module's services they use, and how they name the acting organization
// and a webhook subscription.
import type { WebhookKeyService } from '../../webhooks/keys/service.js'
import type { WebhookSubscriptions } from '../../webhooks/notification-subscriptions/service.js'
import type { NotificationLog } from '../../webhooks/notifications/service.js'
import type { Replays } from '../../webhooks/replays/service.js'
import type { ConsoleSession } from '../sessions/service.js'

/** What the webhook pages use of the webhooks module's services (WebhooksServices). */
export interface ConsoleWebhookServices {
  subscriptions: Pick<WebhookSubscriptions, 'list' | 'create' | 'update' | 'setStatus' | 'queueTest' | 'owned'>
  keys: Pick<WebhookKeyService, 'list' | 'save' | 'revoke'>
  notifications: Pick<NotificationLog, 'listWithAttempts' | 'detail'>
  replays: Pick<Replays, 'replay' | 'replayNotifications'>
}

export interface ConsoleWebhookDeps {
  webhooks: ConsoleWebhookServices
}

/** The API's webhookId form; anything else is not found without a look. */
export const WEBHOOK_ID = /^[A-Za-z0-9_-]{1,64}$/

/** The console acts for one organization, as a key of that organization would in the API. */
export const actingOf = (s: ConsoleSession) => ({ id: s.actingId, authenticatedId: s.actingId })
