// The meaning of a subscription request, checked after its shape: every problem is collected, named by the body
// member at fault, so one 400 lists them all. Returns the normalized subscription (upper-case frequency, one time
// zone key, SOAPI for "Simple Order API", defaults filled) that is stored and compared for 304.
import type { ErrorDetail } from '../../platform/errors.js'
import type { DefinitionFacts, DefinitionsService } from '../report-definitions/service.js'
import type { PredefinedBody, SubscriptionBody } from './schemas.js'
import { TIME_ZONES } from './time-zones.js'

export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'USER_DEFINED'] as const
export type Frequency = (typeof FREQUENCIES)[number]
const ZONES = new Set(TIME_ZONES)
const INTERVAL = /^PT((([1-9]|1[0-9]|2[0-3])H(([1-9]|[1-4][0-9]|5[0-9])M)?)|((([1-9]|1[0-9]|2[0-3])H)?([1-9]|[1-4][0-9]|5[0-9])M))$/
const START_TIME = /^([01][0-9]|2[0-3])[0-5][0-9]$/
// Maps: both are looked up by the caller's text, which a plain object would answer for `toString` or `constructor`.
const CONVENTIONS: ReadonlyMap<string, string> = new Map([['SOAPI', 'SOAPI'], ['SCMP', 'SCMP'], ['Simple Order API', 'SOAPI']])
/** Names clients copy from samples, with the definition they mean. */
const DID_YOU_MEAN: ReadonlyMap<string, string> = new Map(['TransactionDetailClass', 'TransactionDetailReportClass', 'TransactionRequestDetailClass'].map((name) => [name, 'TransactionRequestClass']))

export interface NormalizedSubscription {
  subscriptionType: 'CUSTOM' | 'CLASSIC' | 'STANDARD'
  subscriptionStatus: 'ACTIVE' | 'INACTIVE'
  reportName: string
  definition: DefinitionFacts
  reportMimeType: string
  reportFrequency: Frequency
  reportInterval: string | null
  timezone: string
  startTime: string
  startDay: number | null
  reportFields: string[]
  reportFilters: Record<string, string[]>
  reportPreferences: { signedAmounts: boolean; fieldNameConvention: string }
  groupName: string | null
}

export type Checked = { ok: true; value: NormalizedSubscription } | { ok: false; details: ErrorDetail[] }

type Common = Pick<SubscriptionBody, 'reportDefinitionName' | 'reportMimeType' | 'reportFrequency' | 'reportInterval' | 'timezone' | 'timeZone' | 'startTime' | 'startDay'>

interface Schedule {
  definition: DefinitionFacts | undefined
  reportMimeType: string
  reportFrequency: Frequency | undefined
  reportInterval: string | null
  timezone: string | undefined
  startTime: string
  startDay: number | null
}

/** The members custom and predefined subscriptions share. */
/** What an organization may subscribe to at most (REPORT_MAX_SUBSCRIPTIONS_PER_ORG, REPORT_MIN_INTERVAL_MINUTES). */
export interface SubscriptionLimits {
  maxSubscriptions: number
  minIntervalMinutes: number
}

const minutesOf = (interval: string) => Number(/(\d+)H/.exec(interval)?.[1] ?? 0) * 60 + Number(/(\d+)M/.exec(interval)?.[1] ?? 0)
const asInterval = (minutes: number) => `PT${minutes >= 60 ? `${Math.floor(minutes / 60)}H` : ''}${minutes % 60 ? `${minutes % 60}M` : ''}`

function checkCommon(body: Common, definitions: DefinitionsService, problems: ErrorDetail[], defaults: { zone?: string }, limits: SubscriptionLimits): Schedule {
  const problem = (field: string, reason: string) => problems.push({ field, reason })
  const definition = definitions.find(body.reportDefinitionName)
  if (!definition) {
    const hint = DID_YOU_MEAN.get(body.reportDefinitionName)
    problem('reportDefinitionName', `unknown report definition${hint ? ` (did you mean ${hint}?)` : ''}`)
  }
  const reportMimeType = body.reportMimeType ?? 'text/csv'
  const formats = definition && reportFormats(definition)
  if (formats && !formats.includes(reportMimeType)) problem('reportMimeType', `must be one of ${formats.join(', ')}`)

  const frequencyText = (body.reportFrequency ?? 'DAILY').toUpperCase()
  let reportFrequency: Frequency | undefined
  if ((FREQUENCIES as readonly string[]).includes(frequencyText)) reportFrequency = frequencyText as Frequency
  else if (frequencyText === 'ADHOC') problem('reportFrequency', 'ADHOC is for one-time reports (POST /reporting/v3/reports), not subscriptions')
  else problem('reportFrequency', `must be one of ${FREQUENCIES.join(', ')}`)

  let reportInterval: string | null = null
  if (reportFrequency === 'USER_DEFINED') {
    if (body.reportInterval === undefined) problem('reportInterval', 'is required with USER_DEFINED')
    else if (!INTERVAL.test(body.reportInterval)) problem('reportInterval', 'must be an ISO 8601 duration PT#H#M under 24 hours, e.g. PT2H30M')
    else if (minutesOf(body.reportInterval) < limits.minIntervalMinutes) problem('reportInterval', `must be at least ${asInterval(limits.minIntervalMinutes)}, the shortest interval between reports allowed`)
    else reportInterval = body.reportInterval
  } else if (body.reportInterval !== undefined) problem('reportInterval', 'applies only to USER_DEFINED')

  let timezone: string | undefined = body.timezone ?? body.timeZone ?? defaults.zone
  if (body.timezone !== undefined && body.timeZone !== undefined && body.timezone !== body.timeZone) {
    problem('timeZone', 'timezone and timeZone disagree')
    timezone = undefined
  } else if (timezone === undefined) problem('timezone', 'is required (timezone or timeZone)')
  else if (!ZONES.has(timezone)) {
    problem(body.timezone !== undefined ? 'timezone' : 'timeZone', 'is not a supported time zone')
    timezone = undefined
  }

  const startTime = body.startTime ?? '0000'
  if (!START_TIME.test(startTime)) problem('startTime', 'must be HHMM, 0000 to 2359')

  let startDay: number | null = body.startDay === undefined ? null : Number(body.startDay)
  const max = reportFrequency === 'WEEKLY' ? 7 : 31
  if (startDay !== null && (!Number.isInteger(startDay) || startDay < 1 || startDay > max)) {
    problem('startDay', reportFrequency === 'WEEKLY' ? 'must be 1 (Sunday) to 7 (Saturday) for WEEKLY' : 'must be 1 to 31')
  }
  if (startDay === null && (reportFrequency === 'WEEKLY' || reportFrequency === 'MONTHLY')) startDay = 1
  return { definition, reportMimeType, reportFrequency, reportInterval, timezone, startTime, startDay }
}

export function checkSubscription(body: SubscriptionBody, definitions: DefinitionsService, limits: SubscriptionLimits): Checked {
  const problems: ErrorDetail[] = []
  const schedule = checkCommon(body, definitions, problems, {}, limits)
  const { definition } = schedule
  const content = checkContent(body, definition, schedule.reportMimeType, problems)

  if (problems.length || !definition || !schedule.reportFrequency || !schedule.timezone) return { ok: false, details: problems }
  return {
    ok: true,
    value: {
      ...schedule,
      definition,
      reportFrequency: schedule.reportFrequency,
      timezone: schedule.timezone,
      subscriptionType: 'CUSTOM',
      subscriptionStatus: 'ACTIVE',
      reportName: body.reportName,
      ...content,
      groupName: body.groupName ?? body.selectedMerchantGroupName ?? null,
    },
  }
}

/** The definition's formats and JSON, which every report can also be written in (an extension to the reference). */
export function reportFormats(definition: DefinitionFacts): string[] {
  return [...definition.supportedFormats, 'application/json']
}

export interface ReportContent {
  reportFields: string[]
  reportFilters: Record<string, string[]>
  reportPreferences: { signedAmounts: boolean; fieldNameConvention: string }
}

type ContentBody = Pick<SubscriptionBody, 'reportFields' | 'reportFilters'> & { reportPreferences?: { signedAmounts?: boolean | string; fieldNameConvention?: string } }

/**
 * What a report holds, as subscriptions and one-time reports both name it: fields of the definition (no duplicates),
 * filters on its filterable fields with known values, and preferences (signedAmounts, default true; the CSV field
 * name convention SOAPI, SCMP or "Simple Order API" = SOAPI). Problems are added to `problems`.
 */
export function checkContent(body: ContentBody, definition: DefinitionFacts | undefined, reportMimeType: string, problems: ErrorDetail[]): ReportContent {
  const problem = (field: string, reason: string) => problems.push({ field, reason })
  if (body.reportFields.length === 0) problem('reportFields', 'must name at least one field')
  const seen = new Set<string>()
  body.reportFields.forEach((field, i) => {
    if (seen.has(field)) problem(`reportFields[${i}]`, `${field} is listed twice`)
    else if (definition && !definition.fields.has(field)) problem(`reportFields[${i}]`, `${field} is not a field of ${definition.name}`)
    seen.add(field)
  })

  const reportFilters: Record<string, string[]> = {}
  for (const [name, values] of Object.entries(body.reportFilters ?? {})) {
    const valid = definition?.filters.get(name)
    if (definition && !valid) problem(`reportFilters.${name}`, `is not a filter of ${definition.name}${definition.filters.size ? ` (filters: ${[...definition.filters.keys()].join(', ')})` : ''}`)
    else if (values.length === 0) problem(`reportFilters.${name}`, 'must list at least one value')
    else {
      const bad = valid ? values.filter((v) => !valid.includes(v)) : []
      if (bad.length) problem(`reportFilters.${name}`, `unknown values: ${bad.join(', ')}`)
      reportFilters[name] = [...new Set(values)].sort()
    }
  }

  const prefs = body.reportPreferences ?? {}
  let fieldNameConvention = 'SOAPI'
  if (prefs.fieldNameConvention !== undefined) {
    const convention = CONVENTIONS.get(prefs.fieldNameConvention)
    if (!convention) problem('reportPreferences.fieldNameConvention', 'must be SOAPI, SCMP or Simple Order API')
    else if (reportMimeType !== 'text/csv') problem('reportPreferences.fieldNameConvention', 'applies only to text/csv reports')
    else fieldNameConvention = convention
  }
  let signedAmounts = true
  if (prefs.signedAmounts !== undefined) {
    if (prefs.signedAmounts === true || prefs.signedAmounts === 'true') signedAmounts = true
    else if (prefs.signedAmounts === false || prefs.signedAmounts === 'false') signedAmounts = false
    else problem('reportPreferences.signedAmounts', 'must be true or false')
  }
  return { reportFields: body.reportFields, reportFilters, reportPreferences: { signedAmounts, fieldNameConvention } }
}

/**
 * A predefined (CLASSIC or STANDARD) subscription: the definition's whole default field set, no filters. CLASSIC
 * runs DAILY in GMT by default; STANDARD runs DAILY, WEEKLY or MONTHLY in Pacific time only (the reference's
 * "PST" is America/Los_Angeles, the spec's zone for it).
 */
export function checkPredefined(body: PredefinedBody, definitions: DefinitionsService, limits: SubscriptionLimits): Checked {
  const problems: ErrorDetail[] = []
  const problem = (field: string, reason: string) => problems.push({ field, reason })
  const type = body.subscriptionType === 'CLASSIC' || body.subscriptionType === 'STANDARD' ? body.subscriptionType : undefined
  if (!type) problem('subscriptionType', 'must be CLASSIC or STANDARD')
  const schedule = checkCommon(body, definitions, problems, { zone: type === 'STANDARD' ? 'America/Los_Angeles' : 'GMT' }, limits)
  if (type === 'CLASSIC' && schedule.reportFrequency && schedule.reportFrequency !== 'DAILY') problem('reportFrequency', 'a CLASSIC subscription runs DAILY')
  if (type === 'STANDARD' && schedule.reportFrequency === 'USER_DEFINED') problem('reportFrequency', 'a STANDARD subscription runs DAILY, WEEKLY or MONTHLY')
  if (type === 'STANDARD' && schedule.timezone && schedule.timezone !== 'America/Los_Angeles') problem(body.timezone !== undefined ? 'timezone' : 'timeZone', 'a STANDARD subscription runs in America/Los_Angeles (PST)')
  const status = body.subscriptionStatus ?? 'ACTIVE'
  if (status !== 'ACTIVE' && status !== 'INACTIVE') problem('subscriptionStatus', 'must be ACTIVE or INACTIVE')

  const { definition, reportFrequency, timezone } = schedule
  if (problems.length || !definition || !reportFrequency || !timezone || !type) return { ok: false, details: problems }
  const title = (s: string) => s.charAt(0) + s.slice(1).toLowerCase()
  return {
    ok: true,
    value: {
      ...schedule,
      definition,
      reportFrequency,
      timezone,
      subscriptionType: type,
      subscriptionStatus: status as 'ACTIVE' | 'INACTIVE',
      reportName: body.reportName ?? `${definition.name.replace(/Class$/, '')}_${title(reportFrequency)}_${title(type)}`,
      reportFields: [...definition.fields],
      reportFilters: {},
      reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' },
      groupName: null,
    },
  }
}
