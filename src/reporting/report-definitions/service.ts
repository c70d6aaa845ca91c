// Report definitions: what reports exist, in which formats, with which default settings and fields. Built once
// from the data modules (definitions.ts, the spec's field catalog, the reference's TransactionRequestClass fields).
import { notFound } from '../../platform/errors.js'
import { DEFINITIONS, REPORT_MIME_TYPES, REQUEST_FIELDS, type DefinitionData, type ReportMimeType, type SubscriptionType } from './definitions.js'
import { FIELD_CATALOG } from './field-catalog.js'
import type { ReportDefinition, ReportDefinitionAttribute, ReportDefinitionSummary } from './schemas.js'
import { TRANSACTION_REQUEST_FIELDS } from './transaction-request-fields.js'

/** The application names a report can be filtered by (`Application.Name`), the reference's example values in part. */
const APPLICATION_NAMES = ['ics_auth', 'ics_auth_reversal', 'ics_bill', 'ics_credit', 'ics_dcc', 'ics_decision', 'ics_ecp_credit', 'ics_ecp_debit', 'ics_pa_enroll', 'ics_pa_validate', 'ics_pay_subscription_create', 'ics_score', 'ics_tax', 'ics_void']
const REQUIRED = new Set<string>(REQUEST_FIELDS.slice(0, 3))

export interface DefinitionQuery {
  subscriptionType?: SubscriptionType
  reportMimeType?: ReportMimeType
}

/** What other reporting modules check a request against (subscriptions): a definition's id, formats, fields, filters. */
export interface DefinitionFacts {
  name: string
  id: number
  supportedFormats: readonly ReportMimeType[]
  /** Every attribute name (`Group.Field`), in the definition's order. */
  fields: ReadonlySet<string>
  /** The filterable attributes (filterType MULTI) and their valid values. */
  filters: ReadonlyMap<string, readonly string[]>
}

/** The answers are the same objects for the same query: callers must not change them (the routes send their bytes). */
export interface DefinitionsService {
  list(query: DefinitionQuery): ReportDefinitionSummary[]
  /** The facts of a definition, or undefined for a name that is none. */
  find(name: string): DefinitionFacts | undefined
  /** Throws notFound() for a name that is no definition. */
  get(name: string, query: DefinitionQuery): ReportDefinition
}

/** Descriptions by `Group.Field`, from the catalog. */
const catalogDescriptions = new Map<string, string>(FIELD_CATALOG.flatMap((g) => g.fields.map((f) => [`${g.group}.${f.name}`, f.description ? `${g.title}: ${f.name} (${f.description})` : `${g.title}: ${f.name}`] as const)))

function fieldNames(definition: DefinitionData): readonly string[] {
  if (definition.name === 'TransactionRequestClass') return TRANSACTION_REQUEST_FIELDS
  return [...REQUEST_FIELDS, ...definition.groups.flatMap((group) => FIELD_CATALOG.filter((g) => g.group === group).flatMap((g) => g.fields.map((f) => `${g.group}.${f.name}`)))]
}

function attribute(name: string): ReportDefinitionAttribute {
  const [group = '', field = ''] = name.split(/\.(.*)/s)
  const filterable = name === 'Application.Name'
  return {
    id: name,
    name,
    description: catalogDescriptions.get(name) ?? `${group}: ${field}`,
    filterType: filterable ? 'MULTI' : 'NONE',
    default: true,
    required: REQUIRED.has(name),
    supportedType: filterable ? APPLICATION_NAMES.join(',') : 'STRING',
  }
}

function summary(definition: DefinitionData, query: DefinitionQuery): ReportDefinitionSummary {
  return {
    type: definition.type,
    reportDefinitionId: definition.id,
    reportDefintionName: definition.name,
    supportedFormats: [...REPORT_MIME_TYPES],
    description: definition.description,
    defaultSettings: {
      reportMimeType: query.reportMimeType ?? 'text/csv',
      reportFrequency: 'DAILY',
      reportName: `My ${definition.title} Report`,
      timezone: 'GMT',
      startTime: '0000',
      startDay: 1,
      reportFilters: {},
      reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' },
    },
    subscriptionType: query.subscriptionType ?? 'CUSTOM',
  }
}

export function createDefinitionsService(): DefinitionsService {
  const byName = new Map(DEFINITIONS.map((d) => [d.name, d]))
  const attributes = new Map(DEFINITIONS.map((d) => [d.name, fieldNames(d).map(attribute)]))
  const facts = new Map<string, DefinitionFacts>(
    DEFINITIONS.map((d) => {
      const attrs = attributes.get(d.name)!
      const filters = new Map(attrs.filter((a) => a.filterType === 'MULTI').map((a) => [a.name, a.supportedType.split(',')] as const))
      return [d.name, { name: d.name, id: d.id, supportedFormats: REPORT_MIME_TYPES, fields: new Set(attrs.map((a) => a.name)), filters }]
    }),
  )
  // The answers are constant for each query (the schema allows a few values of each parameter), so each is built
  // once and the same object handed out again: the routes send it as the bytes rendered the first time.
  const answers = new Map<string, ReportDefinitionSummary[] | ReportDefinition>()
  const once = <T extends ReportDefinitionSummary[] | ReportDefinition>(key: string, build: () => T): T => {
    let answer = answers.get(key) as T | undefined
    if (answer === undefined) answers.set(key, (answer = build()))
    return answer
  }
  const queryKey = (query: DefinitionQuery) => `${query.subscriptionType ?? ''}\u0000${query.reportMimeType ?? ''}`
  return {
    list: (query) => once(`\u0000${queryKey(query)}`, () => DEFINITIONS.map((d) => summary(d, query))),
    find: (name) => facts.get(name),
    get(name, query) {
      const definition = byName.get(name)
      if (!definition) throw notFound([{ field: 'reportDefinitionName', reason: `no report definition named ${name}` }])
      return once(`${name}\u0000${queryKey(query)}`, () => {
        const { subscriptionType, ...rest } = summary(definition, query)
        return { ...rest, attributes: attributes.get(name)!, subscriptionType }
      })
    },
  }
}
