// Wire schemas of the report definition operations, as allow-lists. Keys follow the reference document and the
// official SDK's models, including the list's `reportDefintionName` (sic).
import { Type, type Static } from 'typebox'
import { REPORT_MIME_TYPES, SUBSCRIPTION_TYPES } from './definitions.js'

const MimeType = Type.Enum([...REPORT_MIME_TYPES], { description: 'application/xml or text/csv' })
const SubscriptionTypeParam = Type.Enum([...SUBSCRIPTION_TYPES], { description: 'CLASSIC, CUSTOM (default) or STANDARD' })

export const DefinitionsListQuery = Type.Object({ subscriptionType: Type.Optional(SubscriptionTypeParam), reportMimeType: Type.Optional(MimeType) })
export const DefinitionQuery = DefinitionsListQuery
export const DefinitionParams = Type.Object({ reportDefinitionName: Type.String({ minLength: 1, maxLength: 64, description: 'Name of the report definition' }) })

export const DefaultSettings = Type.Object({
  reportMimeType: MimeType,
  reportFrequency: Type.String({ description: 'DAILY, WEEKLY, MONTHLY or ADHOC' }),
  reportName: Type.String(),
  timezone: Type.String(),
  startTime: Type.String({ description: 'HHMM' }),
  startDay: Type.Integer(),
  reportFilters: Type.Record(Type.String(), Type.Array(Type.String())),
  reportPreferences: Type.Object({ signedAmounts: Type.Boolean(), fieldNameConvention: Type.String({ description: 'SOAPI or SCMP' }) }),
})

const summaryProperties = {
  type: Type.String(),
  reportDefinitionId: Type.Integer(),
  reportDefintionName: Type.String({ description: 'The definition name (the real service spells the key this way)' }),
  supportedFormats: Type.Array(MimeType),
  description: Type.String(),
  defaultSettings: DefaultSettings,
  subscriptionType: SubscriptionTypeParam,
}

export const ReportDefinitionSummary = Type.Object(summaryProperties)
export type ReportDefinitionSummary = Static<typeof ReportDefinitionSummary>

export const ReportDefinitionAttribute = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'Group.Field, as written in reportFields' }),
  description: Type.String(),
  filterType: Type.String({ description: 'MULTI for a field reports can be filtered by, else NONE' }),
  default: Type.Boolean(),
  required: Type.Boolean(),
  supportedType: Type.String({ description: 'For a filter: its valid values, comma-separated' }),
})
export type ReportDefinitionAttribute = Static<typeof ReportDefinitionAttribute>

export const ReportDefinition = Type.Object({ ...summaryProperties, attributes: Type.Array(ReportDefinitionAttribute) })
export type ReportDefinition = Static<typeof ReportDefinition>

export const ReportDefinitionList = Type.Object({ reportDefinitions: Type.Array(ReportDefinitionSummary) })
