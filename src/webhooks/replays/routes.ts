// Replays: POST /webhooks/{webhookId}/replays (the developer guide's), and /nrtf/v1/webhooks/{webhookId}/replays
// where the SDKs that modelled it sent it.
import type { Clock } from '../../platform/clock.js'
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { WebhookIdParams } from '../notification-subscriptions/schemas.js'
import type { WebhookSubscriptions } from '../notification-subscriptions/service.js'
import { ReplayAccepted, ReplayBody } from './schemas.js'
import type { Replays } from './service.js'

const tags = ['Webhooks']
const invalidData = failureBody(['INVALID_DATA'])

export async function replayRoutes(scope: App, deps: { replays: Replays; subscriptions: Pick<WebhookSubscriptions, 'owned'>; clock: Clock }): Promise<void> {
  // Where the SDKs that modelled it send it, and the developer guide's own path.
  for (const [path, operationId] of [
    ['/nrtf/v1/webhooks/:webhookId/replays', 'replayPreviousWebhooks'],
    ['/webhooks/:webhookId/replays', 'replayWebhookNotifications'],
  ] as const) {
    scope.post(
      path,
      {
        schema: {
          operationId,
          summary: 'Replay notifications: by trace ids, or by status in a window of the last 30 days, or in the last hours',
          description: 'Each notification selected is sent once more, now (V-C-request-type RETRY), under its notificationId. byDeliveryStatus.status HELD replays what arrived while the subscription was INACTIVE.',
          tags,
          params: WebhookIdParams,
          body: ReplayBody,
          response: { 202: ReplayAccepted, 400: invalidData },
        },
      },
      async (request, reply) => {
        const sub = await deps.subscriptions.owned(actingOrganization(request), request.params.webhookId)
        const count = await deps.replays.replay(sub.id, request.body)
        return reply.code(202).send({ submitTimeUtc: deps.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'), status: 'ACCEPTED', replayedNotifications: count })
      },
    )
  }
}
