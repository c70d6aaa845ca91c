// GET /report-definitions and /report-definitions/{reportDefinitionName}, behind the reporting gateway.
import type { App } from '../../platform/http/app.js'
import { sendRendered } from '../../platform/rendered.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { DefinitionParams, DefinitionQuery, DefinitionsListQuery, ReportDefinition, ReportDefinitionList } from './schemas.js'
import type { DefinitionsService } from './service.js'

const tags = ['Report Definitions']

export async function definitionRoutes(scope: App, deps: { definitions: DefinitionsService }): Promise<void> {
  scope.get(
    '/reporting/v3/report-definitions',
    {
      schema: {
        operationId: 'getResourceV2Info',
        summary: 'Get Reporting Resource Information',
        tags,
        querystring: DefinitionsListQuery,
        response: { 200: ReportDefinitionList, 400: failureBody(['INVALID_DATA']) },
      },
    },
    // Constant answers: rendered through the response schema once, then sent as those bytes.
    (request, reply) => sendRendered(reply, deps.definitions.list(request.query), (list) => ({ reportDefinitions: list })),
  )

  scope.get(
    '/reporting/v3/report-definitions/:reportDefinitionName',
    {
      schema: {
        operationId: 'getResourceInfoByReportDefinition',
        summary: 'Get Report Definition',
        tags,
        params: DefinitionParams,
        querystring: DefinitionQuery,
        response: { 200: ReportDefinition, 400: failureBody(['INVALID_DATA']) },
      },
    },
    (request, reply) => sendRendered(reply, deps.definitions.get(request.params.reportDefinitionName, request.query), (definition) => definition),
  )
}
