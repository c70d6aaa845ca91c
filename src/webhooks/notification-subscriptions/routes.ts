// The webhook management operations under /notification-subscriptions, as the official SDK calls them
// (CreateNewWebhooksApi, ManageWebhooksApi): lists are bare JSON arrays; the status PUT and DELETE answer 200 with no
// body; the test call is v1 while the rest is v2.
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { CreateWebhook, ListQuery, OrganizationParams, ProductList, TestNotification, UpdatedWebhook, UpdateStatus, UpdateWebhook, Webhook, WebhookIdParams, WebhookList } from './schemas.js'
import type { WebhookSubscriptions } from './service.js'

const tags = ['Webhooks']
const invalidData = failureBody(['INVALID_DATA'])
/** 200 with no body (null would serialize as `null`). */
const NO_BODY = undefined as never
const Empty = Type.Null({ description: 'Ok (no body)' })

export async function subscriptionRoutes(scope: App, deps: { subscriptions: WebhookSubscriptions }): Promise<void> {
  const { subscriptions } = deps

  scope.get(
    '/notification-subscriptions/v2/products/:organizationId',
    { schema: { operationId: 'findProductsToSubscribe', summary: 'Find Products You Can Subscribe To', tags, params: OrganizationParams, response: { 200: ProductList, 400: invalidData } } },
    async (request) => subscriptions.products(actingOrganization(request), request.params.organizationId),
  )

  scope.post(
    '/notification-subscriptions/v2/webhooks',
    { schema: { operationId: 'notificationSubscriptionsV2WebhooksPost', summary: 'Create a New Webhook Subscription (ACTIVE at once)', tags, body: CreateWebhook, response: { 201: Webhook, 400: invalidData } } },
    async (request, reply) => reply.code(201).send(await subscriptions.create(actingOrganization(request), request.body)),
  )

  scope.get(
    '/notification-subscriptions/v2/webhooks',
    { schema: { operationId: 'getWebhookSubscriptionsByOrg', summary: 'Get Details On All Created Webhooks', tags, querystring: ListQuery, response: { 200: WebhookList, 400: invalidData } } },
    async (request) => subscriptions.list(actingOrganization(request).id, { productId: request.query.productId, eventType: request.query.eventType }),
  )

  scope.get(
    '/notification-subscriptions/v2/webhooks/:webhookId',
    { schema: { operationId: 'getWebhookSubscriptionById', summary: 'Get Details On a Single Webhook', tags, params: WebhookIdParams, response: { 200: Webhook, 400: invalidData } } },
    async (request) => subscriptions.get(actingOrganization(request), request.params.webhookId),
  )

  scope.patch(
    '/notification-subscriptions/v2/webhooks/:webhookId',
    { schema: { operationId: 'notificationSubscriptionsV2WebhooksWebhookIdPatch', summary: 'Update a Webhook Subscription', tags, params: WebhookIdParams, body: UpdateWebhook, response: { 200: UpdatedWebhook, 400: invalidData } } },
    async (request) => subscriptions.update(actingOrganization(request), request.params.webhookId, request.body),
  )

  scope.put(
    '/notification-subscriptions/v2/webhooks/:webhookId/status',
    {
      schema: {
        operationId: 'notificationSubscriptionsV2WebhooksWebhookIdStatusPut',
        summary: 'Activate or deactivate a webhook subscription',
        description: 'ACTIVE resumes a SUSPENDED subscription (its held notifications are sent); INACTIVE stops deliveries (notifications are kept, HELD, for a replay). `{}` means INACTIVE, the SDK model’s default.',
        tags,
        params: WebhookIdParams,
        body: UpdateStatus,
        response: { 200: Empty, 400: invalidData },
      },
    },
    async (request, reply) => {
      await subscriptions.setStatus(actingOrganization(request), request.params.webhookId, request.body)
      return reply.code(200).send(NO_BODY)
    },
  )

  scope.delete(
    '/notification-subscriptions/v2/webhooks/:webhookId',
    { schema: { operationId: 'deleteWebhookSubscription', summary: 'Delete a Webhook Subscription (undelivered notifications are cancelled; history is kept)', tags, params: WebhookIdParams, response: { 200: Empty, 400: invalidData } } },
    async (request, reply) => {
      await subscriptions.remove(actingOrganization(request), request.params.webhookId)
      return reply.code(200).send(NO_BODY)
    },
  )

  scope.post(
    '/notification-subscriptions/v1/webhooks/:webhookId',
    {
      schema: {
        operationId: 'notificationSubscriptionsV1WebhooksWebhookIdPost',
        summary: 'Test a webhook: send a sample notification now',
        description: 'The body is `{}`. The first attempt is made during the call; retries follow the subscription’s policy. A delivered test resumes a SUSPENDED subscription.',
        tags,
        params: WebhookIdParams,
        response: { 201: TestNotification, 400: invalidData },
      },
    },
    async (request, reply) => reply.code(201).send(await subscriptions.test(actingOrganization(request), request.params.webhookId)),
  )
}
