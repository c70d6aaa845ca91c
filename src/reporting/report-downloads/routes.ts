// GET /reporting/v3/report-downloads, behind the reporting gateway: a report's file, as download.ts sends it.
import { Type } from 'typebox'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { sendReport } from './download.js'
import { DownloadQuery } from './schemas.js'
import type { ReportDownloads } from './service.js'

const File = (description: string) => ({
  description,
  content: Object.fromEntries(['text/csv', 'application/xml', 'application/json'].map((type) => [type, { schema: { type: 'string' } }])),
})

export async function reportDownloadRoutes(scope: App, deps: { downloads: ReportDownloads; blobs: BlobStore }): Promise<void> {
  scope.get(
    '/reporting/v3/report-downloads',
    {
      schema: {
        operationId: 'downloadReport',
        summary: 'Download a Report',
        description:
          "The report's file in its own format whatever Accept says; gzip-encoded as stored for clients that accept it, with an ETag and byte ranges (206, If-Range) so a broken download resumes. 400 when several reports of the name end that day and reportTime does not choose one.",
        tags: ['Report Downloads'],
        querystring: DownloadQuery,
        response: {
          200: File('The report file'),
          206: File('Part of the report file (Range)'),
          304: Type.Null({ description: 'Not Modified (If-None-Match)' }),
          400: failureBody(['INVALID_DATA']),
          416: Type.Null({ description: 'Range Not Satisfiable; Content-Range gives the size' }),
        },
      },
    },
    async (request, reply) => sendReport(request, reply, await deps.downloads.find(actingOrganization(request).id, request.query), deps.blobs),
  )
}
