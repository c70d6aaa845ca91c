// The reporting interface as one feature: its gateway (HTTP Signature, JWT and OAuth bearer tokens; the acting
// organization) and routes under /reporting/v3, answering in the reporting error family; the JWT ids it remembers
// and their pruning; its refusals counted on /metrics. Built by the composition root from narrowed dependencies.
import type { ReportingKeyService } from '../applications/reporting-keys.js'
import type { AccessTokenResolver } from '../identity/types.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import { LabelledCounter } from '../platform/counters.js'
import type { Executor } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import type { App } from '../platform/http/app.js'
import { createReportingAuthenticator, type ReportingAuthFailure } from './auth/authenticate.js'
import * as authRepo from './auth/repository.js'
import { createDefinitionsService, type DefinitionsService } from './definitions/service.js'
import { definitionRoutes } from './definitions/routes.js'
import { reportingErrors } from './errors.js'
import { reportingGateway } from './gateway.js'
import { subscriptionRoutes } from './subscriptions/routes.js'
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions/service.js'

export interface ReportingServices {
  definitions: DefinitionsService
  subscriptions: SubscriptionsService
}

/** Routes mounted under /reporting/v3 behind the reporting gateway, beside the reporting routes (tests' probes). */
export type ReportingRoutes = (scope: App) => Promise<void>

export interface ReportingDeps {
  db: Executor
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor'>
  /** OAuth access tokens, resolved by the OAuth feature's token service (reporting never imports OAuth). */
  tokens: Pick<AccessTokenResolver, 'find'>
  extraRoutes?: readonly ReportingRoutes[]
}

const DESCRIPTION = `Merchant reporting interface (\`/reporting/v3\`). Every call authenticates in one of three ways, as the
official CyberSource SDKs do (authenticationType \`http_signature\`, \`jwt\`, \`oauth\`):

- **HTTP Signature** (HmacSHA256): headers \`v-c-merchant-id\`, \`date\` (RFC 7231, within 5 minutes), \`host\`, \`digest\`
  (\`SHA-256=<base64>\` of the raw body, POST/PUT/PATCH) and \`signature: keyid="…", algorithm="HmacSHA256",
  headers="host date request-target [digest] v-c-merchant-id", signature="…"\`. A key of a parent organization signs for
  a merchant below it (meta key: the portfolio id is signed, the merchant is sent).
- **JWT**: \`Authorization: Bearer <JWS>\`, RS256 under a registered certificate's key (kid: its subject serialNumber) or
  HS256 under a reporting key's secret (kid: the key id); claims iat/exp (5 minutes' skew), a jti used once, iss,
  v-c-merchant-id, request-method, request-resource-path, request-host, and digest + digest-algorithm for bodies.
- **OAuth 2.0**: \`Authorization: Bearer <access token>\` from \`/oauth2/v3/token\` with scope \`reporting\`, acting for its
  client's organization (client_credentials) or the merchant user's who allowed it (authorization_code).

\`organizationId\` acts for the caller's own organization or one below it. Any authentication failure answers 401
\`{"response":{"rmsg":"Authentication Failed"}}\`.`

export function reportingFeature(deps: ReportingDeps): Feature<ReportingServices> {
  const definitions = createDefinitionsService()
  const subscriptions = createSubscriptionsService({ db: deps.db, clock: deps.clock, definitions })
  const failures = new LabelledCounter<ReportingAuthFailure>('reporting_authentication_failures_total', 'Reporting calls refused as unauthenticated, by reason', 'reason')
  const authenticator = createReportingAuthenticator({
    keys: deps.keys,
    organizations: deps.organizations,
    tokens: deps.tokens,
    jwtIds: { firstSeen: (idHash, expiresAt) => authRepo.recordJwtId(deps.db, idHash, expiresAt.toISOString(), deps.clock.now().toISOString()) },
    clock: deps.clock,
  })
  return {
    name: 'reporting',
    services: { definitions, subscriptions },
    http: {
      prefix: '/reporting/v3',
      errors: reportingErrors(deps.clock),
      async register(scope) {
        await scope.register(reportingGateway, { authenticator, organizations: deps.organizations, failures })
        await definitionRoutes(scope, { definitions })
        await subscriptionRoutes(scope, { subscriptions })
        for (const routes of deps.extraRoutes ?? []) await routes(scope)
      },
    },
    housekeeping: [{ name: 'reporting jwt ids', prune: () => authRepo.deleteExpiredJwtIds(deps.db, deps.clock.now().toISOString()) }],
    metrics: [failures],
    openapi: {
      description: DESCRIPTION,
      securitySchemes: {
        httpSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'signature',
          description: 'HTTP Signature (HmacSHA256) over host, date, request-target, digest and v-c-merchant-id, under a reporting key (finapi keys create --org)',
        },
        jwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The SDK\'s JWT: RS256 under a certificate registered with finapi keys create --org --jwt-cert, or HS256 under a reporting key\'s shared secret',
        },
      },
    },
  }
}
