// The reporting interface as one feature: its gateway (HTTP Signature, the acting organization) and routes under
// /reporting/v3, answering in the reporting error family. Built by the composition root from narrowed dependencies.
import type { ReportingKeyService } from '../applications/reporting-keys.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import type { Executor } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import type { App } from '../platform/http/app.js'
import { createDefinitionsService, type DefinitionsService } from './definitions/service.js'
import { definitionRoutes } from './definitions/routes.js'
import { reportingErrors } from './errors.js'
import { reportingGateway } from './gateway.js'
import { onDemandRoutes } from './on-demand/routes.js'
import { createOnDemandService, type OnDemandService } from './on-demand/service.js'
import { subscriptionRoutes } from './subscriptions/routes.js'
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions/service.js'

export interface ReportingServices {
  definitions: DefinitionsService
  subscriptions: SubscriptionsService
  onDemand: OnDemandService
}

/** Routes mounted under /reporting/v3 behind the reporting gateway, beside the reporting routes (tests' probes). */
export type ReportingRoutes = (scope: App) => Promise<void>

export interface ReportingDeps {
  db: Executor
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'descendants'>
  extraRoutes?: readonly ReportingRoutes[]
}

const DESCRIPTION = `Merchant reporting interface (\`/reporting/v3\`).

Every call is signed with HTTP Signature (HmacSHA256) as the official CyberSource SDKs sign: headers \`v-c-merchant-id\`,
\`date\` (RFC 7231, within 5 minutes), \`host\`, \`digest\` (\`SHA-256=<base64>\` of the raw body, POST/PUT/PATCH) and
\`signature: keyid="…", algorithm="HmacSHA256", headers="host date request-target [digest] v-c-merchant-id",
signature="…"\`. A key of a parent organization signs for a merchant below it (meta key: the portfolio id is signed,
the merchant is sent). \`organizationId\` acts for the caller's own organization or one below it. Any authentication
failure answers 401 \`{"response":{"rmsg":"Authentication Failed"}}\`.`

export function reportingFeature(deps: ReportingDeps): Feature<ReportingServices> {
  const definitions = createDefinitionsService()
  const subscriptions = createSubscriptionsService({ db: deps.db, clock: deps.clock, definitions })
  const onDemand = createOnDemandService({ db: deps.db, organizations: deps.organizations })
  return {
    name: 'reporting',
    services: { definitions, subscriptions, onDemand },
    http: {
      prefix: '/reporting/v3',
      errors: reportingErrors(deps.clock),
      async register(scope) {
        await scope.register(reportingGateway, { keys: deps.keys, organizations: deps.organizations, clock: deps.clock })
        await definitionRoutes(scope, { definitions })
        await subscriptionRoutes(scope, { subscriptions })
        await onDemandRoutes(scope, { onDemand })
        for (const routes of deps.extraRoutes ?? []) await routes(scope)
      },
    },
    openapi: {
      description: DESCRIPTION,
      securitySchemes: {
        httpSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'signature',
          description: 'HTTP Signature (HmacSHA256) over host, date, request-target, digest and v-c-merchant-id, under a reporting key (finapi keys create --org)',
        },
      },
    },
  }
}
