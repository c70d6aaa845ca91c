// GET /report-definitions and /report-definitions/{reportDefinitionName}, behind the reporting gateway.
import type { App } from '../../platform/http/app.js'
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
    async (request) => ({ reportDefinitions: deps.definitions.list(request.query) }),
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
    async (request) => deps.definitions.get(request.params.reportDefinitionName, request.query),
  )
}
