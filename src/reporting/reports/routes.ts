// The report operations, behind the reporting gateway: one-time reports, search and details. Thin handlers: the acting organization and validated input go to the service in one call.
import { Type } from 'typebox'
import { notModified } from '../../platform/errors.js'
import { sendRendered } from '../../platform/rendered.js'
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { withHeaders } from '../../platform/http/documented-headers.js'
import { OneTimeBody, ReportDetail, ReportIdParams, SearchQuery, SearchResults } from './schemas.js'
import type { ReportsService } from './service.js'

const tags = ['Reports']
export async function reportRoutes(scope: App, deps: { reports: ReportsService }): Promise<void> {
  const { reports } = deps

  scope.post(
    '/reporting/v3/reports',
    {
      schema: {
        operationId: 'createReport',
        summary: 'Create Adhoc Report',
        description:
          'A one-time report of a window (at most REPORT_MAX_WINDOW_DAYS, default 31): 201 and queued at once (PENDING until an open window closes), with its URL in Location; 304 for a request identical to one already made.',
        tags,
        body: OneTimeBody,
        response: {
          201: withHeaders(Type.Null({ description: 'Created (no body)' }), { Location: { description: 'The report: /reporting/v3/reports/{reportId}', required: true } }),
          304: Type.Null({ description: 'Not Modified: the same report was already requested' }),
          400: failureBody(['INVALID_DATA']),
        },
      },
    },
    async (request, reply) => {
      const { created, reportId } = await reports.createOneTime(actingOrganization(request).id, request.body)
      // Not on the 304: clients that follow redirects would follow any 3xx that names a Location.
      if (!created) throw notModified()
      return reply.code(201).header('location', `/reporting/v3/reports/${reportId}`).send(undefined as never)
    },
  )

  scope.get(
    '/reporting/v3/reports',
    {
      schema: {
        operationId: 'searchReports',
        summary: 'Retrieve Available Reports',
        description: 'Reports whose window overlaps [startTime, endTime) (reportTimeFrame) or that were queued within it (executedTime); 404 when none.',
        tags,
        querystring: SearchQuery,
        response: { 200: SearchResults, 400: failureBody(['INVALID_DATA']) },
      },
    },
    // Kept while no report changes: the results' bytes are rendered through the schema once.
    (request, reply) => {
      const acting = actingOrganization(request)
      return sendRendered(reply, reports.search(acting.id, request.query, acting.id !== acting.authenticatedId), (results) => ({ reportSearchResults: results }))
    },
  )

  scope.get(
    '/reporting/v3/reports/:reportId',
    {
      schema: { operationId: 'getReportByReportId', summary: 'Get Report Based on Report Id', tags, params: ReportIdParams, response: { 200: ReportDetail, 400: failureBody(['INVALID_DATA']) } },
    },
    (request, reply) => sendRendered(reply, reports.get(actingOrganization(request).id, request.params.reportId), (detail) => detail),
  )
}
