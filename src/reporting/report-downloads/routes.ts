// GET /reporting/v3/report-downloads, behind the reporting gateway: a report's file, as download.ts sends it.
import { Type } from 'typebox'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { App } from '../../platform/http/app.js'
import { withHeaders, type HeaderDocs } from '../../platform/http/documented-headers.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import { sendReport } from './download.js'
import { DownloadQuery, JsonReportFile } from './schemas.js'
import type { ReportDownloads } from './service.js'

const TEXT = { schema: Type.String() }
/** What every answer about the file carries (download.ts writes them before it looks at the conditions). */
const FILE_HEADERS: HeaderDocs = {
  ETag: { description: 'The file\'s strong validator: the SHA-256 of the stored file, suffixed -gzip for the gzip representation', required: true },
  'Last-Modified': { description: 'When the report was completed', required: true },
  'Cache-Control': { description: 'private, no-cache: revalidate with If-None-Match', required: true },
  'Content-Disposition': { description: 'attachment; filename="<reportName>.<csv|xml|json>"', required: true },
  'Accept-Ranges': { description: 'bytes: a broken download resumes with Range (and If-Range)', required: true },
  Vary: { description: 'Accept-Encoding: the gzip representation is another one', required: true },
}
const ENCODING: HeaderDocs = { 'Content-Encoding': { description: 'gzip, the file as stored, when Accept-Encoding allows it; else absent and the file is decompressed as it is sent' } }
const RANGE: HeaderDocs = { 'Content-Range': { description: 'bytes first-last/size of the representation sent (decompressed, unless Content-Encoding: gzip)', required: true } }
const UNSATISFIED: HeaderDocs = { 'Content-Range': { description: 'bytes */size: the size of the representation', required: true } }

const FILE = withHeaders(
  { description: 'The report file, in its own format', content: { 'text/csv': TEXT, 'application/xml': TEXT, 'application/json': { schema: JsonReportFile } } },
  { ...FILE_HEADERS, ...ENCODING },
)
// A byte range of a file is no document of its type: its bytes, as Content-Range names them.
const BYTES = { schema: Type.String({ format: 'binary', description: 'Bytes of the file, as Content-Range names them' }) }
const PART = withHeaders({ description: 'Part of the report file (Range)', content: { 'text/csv': BYTES, 'application/xml': BYTES, 'application/json': BYTES } }, { ...FILE_HEADERS, ...ENCODING, ...RANGE })

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
          200: FILE,
          206: PART,
          304: withHeaders(Type.Null({ description: 'Not Modified (If-None-Match)' }), FILE_HEADERS),
          400: failureBody(['INVALID_DATA']),
          416: withHeaders(Type.Null({ description: 'Range Not Satisfiable' }), { ...FILE_HEADERS, ...UNSATISFIED }),
        },
      },
    },
    async (request, reply) => sendReport(request, reply, await deps.downloads.find(actingOrganization(request).id, request.query), deps.blobs),
  )
}
