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
