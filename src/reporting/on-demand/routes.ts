// The five on-demand report operations under /reporting/v3, behind the reporting gateway. A bad query parameter
// answers 400 naming the parameter as the client wrote it (`limit`, not `querystring.limit`: the reference's own
// details name fields so), with the allowed values where there is a list.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { TObject, TSchema } from 'typebox'
import type { App } from '../../platform/http/app.js'
import { invalid, type ErrorDetail } from '../../platform/errors.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { negotiate } from './formats.js'
import { ConversionDetails, DetailsQuery, FundingsQuery, NetFundings, NotificationOfChanges, okContent, PaymentBatchSummaries, PurchaseRefundDetails, SummariesQuery, WindowQuery } from './schemas.js'
import type { Answer, OnDemandService } from './service.js'

const errors = { 400: failureBody(['INVALID_DATA']), 500: failureBody(['SERVER_ERROR']) }

/** Route error handler: query validation failures renamed to the parameter; everything else to the family. */
function queryErrors(query: TObject) {
  return (error: FastifyError): never => {
    if (!error.validation || error.validationContext !== 'querystring') throw error
    const details = new Map<string, ErrorDetail>()
    for (const v of error.validation) {
      const field = v.instancePath.split('/')[1] ?? (v.params['requiredProperties'] as string[] | undefined)?.join(',') ?? ''
      const schema = query.properties[field] as (TSchema & { enum?: string[]; description?: string }) | undefined
      const reason = v.keyword === 'required' ? 'is required' : schema?.enum ? `must be one of ${schema.enum.join(', ')}` : v.keyword === 'pattern' && schema?.description ? `must be as described: ${schema.description}` : (v.message ?? 'is invalid')
      if (!details.has(field)) details.set(field, { field, reason })
    }
    throw invalid([...details.values()])
  }
}

/**
 * Route hook: integer parameters must be written as digits. The validator's conversion would otherwise read `1.5`
 * as 1, `0x10` as 16 and an empty value as 0, and a client that sent those deserves to be told.
 */
function digitsOnly(...names: string[]) {
  return async (request: FastifyRequest) => {
    const query = request.query as Record<string, unknown>
    const bad = names.filter((name) => typeof query[name] === 'string' && !/^[0-9]{1,10}$/.test(query[name]))
    if (bad.length) throw invalid(bad.map((field) => ({ field, reason: 'must be a whole number written in digits' })))
  }
}

function send(reply: FastifyReply, answer: Answer) {
  return reply.type(answer.contentType).send(answer.body)
}

export async function onDemandRoutes(scope: App, deps: { onDemand: OnDemandService }): Promise<void> {
  const { onDemand } = deps

  scope.get(
    '/reporting/v3/purchase-refund-details',
    {
      errorHandler: queryErrors(DetailsQuery),
      preValidation: digitsOnly('offset', 'limit'),
      schema: {
        operationId: 'getPurchaseAndRefundDetails',
        summary: 'Get Purchase and Refund Details',
        description:
          'Submitted purchases (sales, captures) and refunds (refunds, credits) whose request (or submission) time is in [startTime, endTime), at most 92 days, a page of `limit` requests from `offset`, ordered by that time then request id. Past the end: 200 with the paging fields only. 404 when no transaction falls in the window. `Accept: text/csv` or `application/xml` for CSV or XML.',
        tags: ['Purchase And Refund Details'],
        querystring: DetailsQuery,
        response: {
          200: okContent(PurchaseRefundDetails, { csv: 'One record per request, the sections side by side', xml: 'Report > Requests > Request elements, a child element per section' }),
          ...errors,
        },
      },
    },
    async (request, reply) => send(reply, await onDemand.purchaseRefundDetails(actingOrganization(request).id, request.query, request.headers.accept)),
  )

  scope.get(
    '/reporting/v3/net-fundings',
    {
      errorHandler: queryErrors(FundingsQuery),
      schema: {
        operationId: 'getNetFundingDetails',
        summary: 'Get Netfunding Information for an Account or a Merchant',
        description:
          'Fundings whose funding date (its midnight, UTC) is in [startTime, endTime), at most 92 days, in settlement currency: per type, payment subtype and currency, and totals per currency; refunds, fees and chargebacks are positive and netTotal is purchases − refunds − fees − chargebacks. An account sees its merchants; a reseller is refused (403).',
        tags: ['Net Fundings'],
        querystring: FundingsQuery,
        response: { 200: okContent(NetFundings), ...errors, 403: failureBody(['FORBIDDEN']) },
      },
    },
    async (request, reply) => {
      reply.type(negotiate(request.headers.accept).contentType)
      return onDemand.netFundings(actingOrganization(request).id, request.query)
    },
  )

  scope.get(
    '/reporting/v3/payment-batch-summaries',
    {
      errorHandler: queryErrors(SummariesQuery),
      preValidation: digitsOnly('startDayOfWeek'),
      schema: {
        operationId: 'getPaymentBatchSummary',
        summary: 'Get Payment Batch Summary Data',
        description:
          'Sales and credits submitted in [startTime, endTime), at most 366 days, by currency and payment subtype. Without rollUp and breakdown, the organization\'s own totals over the window; with both, per day, week or month (UTC) and per merchant (all_merchant), per account (account_rollup) or for the merchant named by organizationId (selected_merchant).',
        tags: ['Payment Batch Summaries'],
        querystring: SummariesQuery,
        response: { 200: okContent(PaymentBatchSummaries), 400: errors[400] },
      },
    },
    async (request, reply) => {
      reply.type(negotiate(request.headers.accept).contentType)
      return onDemand.paymentBatchSummaries(actingOrganization(request).id, request.query)
    },
  )

  scope.get(
    '/reporting/v3/conversion-details',
    {
      errorHandler: queryErrors(WindowQuery),
      schema: {
        operationId: 'getConversionDetail',
        summary: 'Get Conversion Detail Transactions',
        description: 'Decision Manager reviews converted (original decision → new decision) in [startTime, endTime), at most 92 days, streamed. `Accept: text/csv` or `application/xml` for CSV or XML.',
        tags: ['Conversion Details'],
        querystring: WindowQuery,
        response: { 200: okContent(ConversionDetails, { csv: 'One record per conversion', xml: 'The reference\'s Report > Conversion elements' }), 400: errors[400] },
      },
    },
    async (request, reply) => send(reply, await onDemand.conversionDetails(actingOrganization(request).id, request.query, request.headers.accept)),
  )

  scope.get(
    '/reporting/v3/notification-of-changes',
    {
      errorHandler: queryErrors(WindowQuery),
      schema: {
        operationId: 'getNotificationOfChangeReport',
        summary: 'Get Notification of Changes',
        description: 'Notifications of change (corrected bank account data) for eCheck payments, received in [startTime, endTime), at most 92 days.',
        tags: ['Notification of Changes'],
        querystring: WindowQuery,
        response: { 200: okContent(NotificationOfChanges), ...errors },
      },
    },
    async (request, reply) => {
      reply.type(negotiate(request.headers.accept).contentType)
      return onDemand.notificationOfChanges(actingOrganization(request).id, request.query)
    },
  )
}
