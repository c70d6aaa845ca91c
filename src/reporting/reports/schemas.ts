// Wire schemas of the report operations (search, details, one-time reports, downloads) as allow-lists, with the
// keys of the reference document and the official SDK's models (CreateAdhocReportRequest,
// ReportingV3ReportsGet200Response, ReportingV3ReportsIdGet200Response). Shapes and types here; meanings in
// validate.ts and the service, which name every field at fault.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

const OrganizationId = Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN, description: 'Your organization or one below it' })
/** One-time names: the reference's 1–128 of letters, digits, `-`, `_` and spaces. */
const ReportName = Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-zA-Z0-9_\\- ]+$' })
const DateTime = Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 date-time with an offset, e.g. 2026-03-01T00:00:00-05:00' })
const Preferences = Type.Object({
  signedAmounts: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: 'true (default): refunds, credits and chargebacks carry a negative amount; the reference sample sends "true"' })),
  fieldNameConvention: Type.Optional(Type.String({ description: 'SOAPI (default) or SCMP; text/csv only' })),
})

export const OneTimeBody = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  reportDefinitionName: Type.String({ minLength: 1, maxLength: 80 }),
  reportFields: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 1000, description: 'Group.Field names among the definition attributes' }),
  reportMimeType: Type.Optional(Type.String({ description: 'text/csv (default), application/xml, or application/json (an extension)' })),
  reportName: ReportName,
  timezone: Type.Optional(Type.String({ description: 'One of the 90 supported time zones (default GMT)' })),
  timeZone: Type.Optional(Type.String()),
  reportStartTime: DateTime,
  reportEndTime: DateTime,
  reportFrequency: Type.Optional(Type.String({ description: 'ADHOC (any case) if given' })),
  reportFilters: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 128 }), { maxItems: 100 }))),
  reportPreferences: Type.Optional(Preferences),
  groupName: Type.Optional(Type.String({ maxLength: 128, pattern: '^[a-zA-Z0-9_\\- ]*$' })),
})
export type OneTimeBody = Static<typeof OneTimeBody>

export const SearchQuery = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  startTime: Type.String({ description: 'ISO 8601 date-time, e.g. 2026-03-01T00:00:00.000Z' }),
  endTime: Type.String({ description: 'ISO 8601 date-time' }),
  timeQueryType: Type.String({ description: 'reportTimeFrame (the report window overlaps [startTime, endTime)) or executedTime (queued within [startTime, endTime])' }),
  reportMimeType: Type.Optional(Type.String({ description: 'application/xml, text/csv or application/json' })),
  reportFrequency: Type.Optional(Type.String({ description: 'DAILY, WEEKLY, MONTHLY, USER_DEFINED or ADHOC, any case' })),
  reportName: Type.Optional(Type.String({ maxLength: 128 })),
  reportDefinitionId: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
  reportStatus: Type.Optional(Type.String({ description: 'COMPLETED, PENDING, QUEUED, RUNNING, ERROR or NO_DATA' })),
})
export type SearchQuery = Static<typeof SearchQuery>

const Link = Type.Object({ reportDownload: Type.Object({ href: Type.String(), method: Type.String() }) })

export const SearchResult = Type.Object({
  _link: Type.Optional(Link),
  reportDefinitionId: Type.String(),
  reportName: Type.String(),
  reportMimeType: Type.String(),
  reportFrequency: Type.String(),
  status: Type.String(),
  reportStartTime: Type.String({ format: 'date-time' }),
  reportEndTime: Type.String({ format: 'date-time' }),
  timezone: Type.String(),
  reportId: Type.String(),
  organizationId: Type.String(),
  queuedTime: Type.Optional(Type.String({ format: 'date-time' })),
  reportGeneratingTime: Type.Optional(Type.String({ format: 'date-time' })),
  reportCompletedTime: Type.Optional(Type.String({ format: 'date-time' })),
  subscriptionType: Type.String(),
  groupId: Type.Optional(Type.String()),
})
export type SearchResult = Static<typeof SearchResult>

export const SearchResults = Type.Object({ reportSearchResults: Type.Array(SearchResult) })

export const ReportDetail = Type.Object({
  organizationId: Type.String(),
  reportId: Type.String(),
  reportDefinitionId: Type.String(),
  reportName: Type.String(),
  reportMimeType: Type.String(),
  reportFrequency: Type.String(),
  reportFields: Type.Array(Type.String()),
  reportStatus: Type.String(),
  reportStartTime: Type.String({ format: 'date-time' }),
  reportEndTime: Type.String({ format: 'date-time' }),
  timezone: Type.String(),
  reportFilters: Type.Record(Type.String(), Type.Array(Type.String())),
  reportPreferences: Type.Object({ signedAmounts: Type.Boolean(), fieldNameConvention: Type.String() }),
  groupId: Type.Optional(Type.String()),
})
export type ReportDetail = Static<typeof ReportDetail>

export const ReportIdParams = Type.Object({ reportId: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'A reportId from a search' }) })

export const DownloadQuery = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  reportName: Type.String({ minLength: 1, maxLength: 128 }),
  reportDate: Type.String({ pattern: '^[0-9]{4}-?[0-9]{2}-?[0-9]{2}$', description: 'YYYY-MM-DD or YYYYMMDD: the date, in the report\'s zone, of the last instant of its window' }),
  reportTime: Type.Optional(Type.String({ pattern: '^[0-9]{2}:[0-9]{2}(:[0-9]{2})?([ +-][0-9]{2}:?[0-9]{2}|Z)?$', description: 'hh:mm:ss±hh:mm: the end of the window, when a name has several reports that day' })),
  download: Type.Optional(Type.String()),
})
export type DownloadQuery = Static<typeof DownloadQuery>

export const ClockBody = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  to: Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 date-time: the organization\'s new reporting time, later than its current one' }),
})

export const ClockState = Type.Object({
  organizationId: Type.String(),
  now: Type.String({ format: 'date-time', description: "The organization's reporting time" }),
  offsetSeconds: Type.Number({ description: 'How far it is ahead of the real clock' }),
  queued: Type.Optional(Type.Array(Type.Object({ reportId: Type.String(), reportName: Type.String(), reportStartTime: Type.String(), reportEndTime: Type.String() }), { description: 'Reports due by the new time, queued in order (with catchingUp, the first of them)' })),
  catchingUp: Type.Optional(Type.Literal(true, { description: 'More reports came due than the answer lists: a background job queues the rest, oldest first' })),
})
export type ClockState = Static<typeof ClockState>
