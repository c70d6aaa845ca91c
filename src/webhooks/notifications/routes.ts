// The delivery log, this project's own: GET /webhooks/v1/notifications and /webhooks/v1/notifications/{notificationId}.
import type { NotificationStatus } from '../tables.js'
import type { App } from '../../platform/http/app.js'
import type { OrganizationService } from '../../organizations/service.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import type { WebhookSubscriptions } from '../notification-subscriptions/service.js'
import { LogQuery, NotificationDetail, NotificationList, NotificationParams } from './schemas.js'
import type { NotificationLog } from './service.js'

const tags = ['Webhooks']
const invalidData = failureBody(['INVALID_DATA'])

export async function notificationRoutes(
  scope: App,
  deps: { notifications: NotificationLog; subscriptions: Pick<WebhookSubscriptions, 'owned'>; organizations: Pick<OrganizationService, 'mayActFor'> },
): Promise<void> {
  scope.get(
    '/webhooks/v1/notifications',
    { schema: { operationId: 'listNotifications', summary: 'The delivery log: notifications, newest first', tags, querystring: LogQuery, response: { 200: NotificationList, 400: invalidData } } },
    async (request) => {
      const acting = actingOrganization(request)
      const { webhookId, status, limit } = request.query
      // A webhookId is checked like any other (an unknown one and another tenant's answer the same).
      if (webhookId !== undefined) await deps.subscriptions.owned(acting, webhookId)
      return { notifications: await deps.notifications.list({ organizationIds: [acting.id], ...(webhookId ? { webhookId } : {}), ...(status ? { status: status as NotificationStatus } : {}), limit: limit ?? 100 }) }
    },
  )

  scope.get(
    '/webhooks/v1/notifications/:notificationId',
    { schema: { operationId: 'getNotification', summary: 'One notification and its every attempt (status, duration, the first bytes of the answer)', tags, params: NotificationParams, response: { 200: NotificationDetail, 400: invalidData } } },
    async (request) => {
      const acting = actingOrganization(request)
      return deps.notifications.detail(request.params.notificationId, (org) => deps.organizations.mayActFor(acting.authenticatedId, org))
    },
  )
}
