// Wire schemas of the report subscription operations, as allow-lists, with the keys of the reference document and
// the official SDK's models (CreateReportSubscriptionRequest, PredefinedSubscriptionRequestBean,
// ReportingV3ReportSubscriptionsGet200Response). They check shapes and types; the service checks meanings
// (definition, fields, frequency, time zone...) and reports every problem at once.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

/** Stored names: 1–80 characters (what GET/DELETE can address), letters, digits, `-`, `_`, space. */
export const REPORT_NAME_PATTERN = '^[a-zA-Z0-9_\\- ]+$'
const ReportName = Type.String({ minLength: 1, maxLength: 80, pattern: REPORT_NAME_PATTERN, description: 'Unique per organization: letters, digits, -, _ and spaces' })
const GroupName = Type.String({ minLength: 1, maxLength: 128, pattern: REPORT_NAME_PATTERN })
const OrganizationId = Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN, description: 'Your organization or one below it' })
const Frequency = Type.String({ description: 'DAILY, WEEKLY, MONTHLY or USER_DEFINED (any case: Daily accepted)' })
const Interval = Type.String({ description: 'USER_DEFINED only: ISO 8601 duration PT#H#M under 24 hours' })
const Zone = Type.String({ description: 'One of the 90 supported time zones' })
const StartTime = Type.String({ description: 'HHMM, 0000 to 2359' })
const StartDay = Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]{1,2}$' })], { description: '1–7 (Sunday=1) for WEEKLY, 1–31 for MONTHLY; the reference sample sends it as text' })

export const SubscriptionBody = Type.Object({
  organizationId: Type.Optional(OrganizationId),
  reportDefinitionName: Type.String({ minLength: 1, maxLength: 80 }),
  reportFields: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 1000, description: 'Group.Field names among the definition attributes' }),
  reportMimeType: Type.Optional(Type.String({ description: 'application/xml or text/csv (default text/csv)' })),
  reportFrequency: Type.Optional(Frequency),
  reportInterval: Type.Optional(Interval),
  reportName: ReportName,
  timezone: Type.Optional(Zone),
  timeZone: Type.Optional(Zone),
  startTime: Type.Optional(StartTime),
  startDay: Type.Optional(StartDay),
  reportFilters: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 128 }), { maxItems: 100 }))),
  reportPreferences: Type.Optional(Type.Object({ signedAmounts: Type.Optional(Type.Boolean()), fieldNameConvention: Type.Optional(Type.String({ description: 'SOAPI, SCMP or Simple Order API (= SOAPI); text/csv only' })) })),
  groupName: Type.Optional(GroupName),
  selectedMerchantGroupName: Type.Optional(GroupName),
})
export type SubscriptionBody = Static<typeof SubscriptionBody>

export const PredefinedBody = Type.Object({
  reportDefinitionName: Type.String({ minLength: 1, maxLength: 80 }),
  subscriptionType: Type.String({ description: 'CLASSIC or STANDARD' }),
  reportName: Type.Optional(ReportName),
  reportMimeType: Type.Optional(Type.String()),
  reportFrequency: Type.Optional(Frequency),
  reportInterval: Type.Optional(Interval),
  timezone: Type.Optional(Zone),
  timeZone: Type.Optional(Zone),
  startTime: Type.Optional(StartTime),
  startDay: Type.Optional(StartDay),
  subscriptionStatus: Type.Optional(Type.String({ description: 'ACTIVE (default) or INACTIVE' })),
})
export type PredefinedBody = Static<typeof PredefinedBody>

export const Subscription = Type.Object({
  organizationId: Type.String(),
  reportDefinitionId: Type.String(),
  reportDefinitionName: Type.String(),
  reportMimeType: Type.String(),
  reportFrequency: Type.String({ description: 'DAILY, WEEKLY, MONTHLY or USER_DEFINED' }),
  reportInterval: Type.Optional(Type.String()),
  reportName: Type.String(),
  timezone: Type.String(),
  startTime: Type.String({ format: 'date-time', description: 'The first run: HHMM on the day the subscription was written, in its time zone' }),
  startDay: Type.Optional(Type.Integer()),
  reportFields: Type.Array(Type.String()),
  reportFilters: Type.Record(Type.String(), Type.Array(Type.String())),
  reportPreferences: Type.Object({ signedAmounts: Type.Boolean(), fieldNameConvention: Type.String() }),
})
export type Subscription = Static<typeof Subscription>

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(Subscription) })
/** The path form: `+` also stands for a space, as form-encoding clients write it. */
export const ReportNameParams = Type.Object({ reportName: Type.String({ minLength: 1, maxLength: 80, pattern: '^[a-zA-Z0-9_\\-+ ]+$' }) })
