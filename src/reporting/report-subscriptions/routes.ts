// The report subscription operations under /reporting/v3, behind the reporting gateway. The two PUTs answer 400 in
// the reference's Error Bean (subscriptionRequestErrors); the other routes in the family's usual body.
import { Type } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { notModified } from '../../platform/errors.js'
import { sendRendered } from '../../platform/rendered.js'
import { subscriptionRequestErrors } from '../../merchant-api/errors.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { ValidationErrorBody, failureBody } from '../../merchant-api/schemas.js'
import { PredefinedBody, ReportNameParams, Subscription, SubscriptionBody, SubscriptionList } from './schemas.js'
import type { SubscriptionsService } from './service.js'

const tags = ['Report Subscriptions']
const Empty = Type.Null({ description: 'Ok (no body)' })
const notModifiedResponse = Type.Null({ description: 'Not Modified: the subscription already reads so' })
/** The reference's PUT/DELETE 200s carry no body: sent as nothing (null would serialize as `null`). */
const NO_BODY = undefined as never
/** A path name: `+` stands for a space. */
const nameOf = (raw: string) => raw.replace(/\+/g, ' ')

export async function subscriptionRoutes(scope: App, deps: { subscriptions: SubscriptionsService }): Promise<void> {
  const { subscriptions } = deps

  scope.get(
    '/reporting/v3/report-subscriptions',
    { schema: { operationId: 'getAllSubscriptions', summary: 'Get All Subscriptions', tags, response: { 200: SubscriptionList, 400: failureBody(['INVALID_DATA']) } } },
    // The list is kept while no subscription changes: its bytes are rendered through the schema once per list.
    (request, reply) => sendRendered(reply, subscriptions.list(actingOrganization(request).id), (list) => ({ subscriptions: list })),
  )

  scope.get(
    '/reporting/v3/report-subscriptions/:reportName',
    { schema: { operationId: 'getSubscription', summary: 'Get Subscription for Report Name', tags, params: ReportNameParams, response: { 200: Subscription, 400: failureBody(['INVALID_DATA']) } } },
    async (request) => subscriptions.get(actingOrganization(request).id, nameOf(request.params.reportName)),
  )

  scope.put(
    '/reporting/v3/report-subscriptions',
    {
      errorHandler: subscriptionRequestErrors,
      schema: {
        operationId: 'createSubscription',
        summary: 'Create or update a Report Subscription by Organization',
        description: 'Creates the subscription, or replaces the one of the same reportName: 200 when created or changed, 304 when it already reads so.',
        tags,
        body: SubscriptionBody,
        response: { 200: Empty, 304: notModifiedResponse, 400: ValidationErrorBody },
      },
    },
    async (request, reply) => {
      const outcome = await subscriptions.put(actingOrganization(request).id, request.body)
      if (outcome === 'unchanged') throw notModified()
      return reply.code(200).send(NO_BODY)
    },
  )

  scope.put(
    '/reporting/v3/predefined-report-subscriptions',
    {
      errorHandler: subscriptionRequestErrors,
      schema: {
        operationId: 'createStandardOrClassicSubscription',
        summary: 'Create a Standard or Classic Subscription',
        description: "A predefined subscription: the definition's whole default field set, CLASSIC (DAILY, GMT by default) or STANDARD (DAILY/WEEKLY/MONTHLY, America/Los_Angeles only). 201 when created, 200 when updated or unchanged.",
        tags,
        body: PredefinedBody,
        response: { 200: Empty, 201: Type.Null({ description: 'Created (no body)' }), 400: ValidationErrorBody },
      },
    },
    async (request, reply) => {
      const outcome = await subscriptions.putPredefined(actingOrganization(request).id, request.body)
      return reply.code(outcome === 'created' ? 201 : 200).send(NO_BODY)
    },
  )

  scope.delete(
    '/reporting/v3/report-subscriptions/:reportName',
    {
      schema: {
        operationId: 'deleteSubscription',
        summary: 'Delete Subscription of a Report Name by Organization',
        tags,
        params: ReportNameParams,
        response: { 200: Empty, 400: failureBody(['INVALID_DATA']) },
      },
    },
    async (request, reply) => {
      await subscriptions.remove(actingOrganization(request).id, nameOf(request.params.reportName))
      return reply.code(200).send(NO_BODY)
    },
  )
}
