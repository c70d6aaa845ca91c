// The download's query: the report by name and date (and time, when a name has several reports that day).
import { Type, type Static } from 'typebox'
import { OrganizationId } from '../reports/schemas.js'

export const DownloadQuery = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  reportName: Type.String({ minLength: 1, maxLength: 128 }),
  reportDate: Type.String({ pattern: '^[0-9]{4}-?[0-9]{2}-?[0-9]{2}$', description: 'YYYY-MM-DD or YYYYMMDD: the date, in the report\'s zone, of the last instant of its window' }),
  reportTime: Type.Optional(Type.String({ pattern: '^[0-9]{2}:[0-9]{2}(:[0-9]{2})?([ +-][0-9]{2}:?[0-9]{2}|Z)?$', description: 'hh:mm:ss±hh:mm: the end of the window, when a name has several reports that day' })),
  download: Type.Optional(Type.String()),
})
export type DownloadQuery = Static<typeof DownloadQuery>

/** A report made as application/json (reports/formats.ts writes it): its heading, then one record per row. */
export const JsonReportFile = Type.Object(
  {
    organizationId: Type.String(),
    reportName: Type.String(),
    reportDefinitionName: Type.String(),
    reportStartTime: Type.String({ description: "The window's start, in the report's zone with its offset" }),
    reportEndTime: Type.String(),
    timezone: Type.String(),
    reportFields: Type.Array(Type.String(), { description: 'The columns, in order: the keys of every record' }),
    records: Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])), { description: 'One object per row, field → value (null when the row has none)' }),
  },
  { description: 'A report made as application/json' },
)
