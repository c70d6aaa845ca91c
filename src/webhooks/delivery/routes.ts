// Replays (the developer guide's POST /webhooks/{webhookId}/replays, and /nrtf/v1/webhooks/{webhookId}/replays where
// the SDKs that modelled it sent it) and the delivery log (this project's own, under /webhooks/v1).
import type { NotificationStatus } from '../../platform/db/schema.js'
import type { App } from '../../platform/http/app.js'
import type { OrganizationService } from '../../organizations/service.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { WebhookIdParams } from '../notification-subscriptions/schemas.js'
import type { WebhookSubscriptions } from '../notification-subscriptions/service.js'
import type { DeliveryDeps } from './deliver.js'
import { notificationDetail, replayNotifications, toSummary } from './log.js'
import * as repo from './repository.js'
import { LogQuery, NotificationDetail, NotificationList, NotificationParams, ReplayAccepted, ReplayBody } from './schemas.js'

const tags = ['Webhooks']
const invalidData = failureBody(['INVALID_DATA'])

export interface DeliveryRouteDeps {
  delivery: DeliveryDeps
  subscriptions: Pick<WebhookSubscriptions, 'owned'>
  organizations: Pick<OrganizationService, 'mayActFor'>
}

export async function deliveryRoutes(scope: App, deps: DeliveryRouteDeps): Promise<void> {
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
        const count = await replayNotifications(deps.delivery, sub.id, request.body)
        return reply.code(202).send({ submitTimeUtc: deps.delivery.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'), status: 'ACCEPTED', replayedNotifications: count })
      },
    )
  }

  scope.get(
    '/webhooks/v1/notifications',
    { schema: { operationId: 'listNotifications', summary: 'The delivery log: notifications, newest first', tags, querystring: LogQuery, response: { 200: NotificationList, 400: invalidData } } },
    async (request) => {
      const acting = actingOrganization(request)
      const { webhookId, status, limit } = request.query
      // A webhookId is checked like any other (an unknown one and another tenant's answer the same).
      if (webhookId !== undefined) await deps.subscriptions.owned(acting, webhookId)
      const rows = await repo.listNotifications(deps.delivery.db, { organizationIds: [acting.id], ...(webhookId ? { webhookId } : {}), ...(status ? { status: status as NotificationStatus } : {}), limit: limit ?? 100 })
      return { notifications: rows.map(toSummary) }
    },
  )

  scope.get(
    '/webhooks/v1/notifications/:notificationId',
    { schema: { operationId: 'getNotification', summary: 'One notification and its every attempt (status, duration, the first bytes of the answer)', tags, params: NotificationParams, response: { 200: NotificationDetail, 400: invalidData } } },
    async (request) => {
      const acting = actingOrganization(request)
      return notificationDetail(deps.delivery, request.params.notificationId, (org) => deps.organizations.mayActFor(acting.authenticatedId, org))
    },
  )
}
