// The merchant API family as one feature: reporting, webhook management and the key service are one API family,
// with one gateway (HTTP Signature, the SDK's JWT, OAuth bearer tokens; the acting organization), one error family
// and body, and one count of refusals. It has no routes: each feature of the family registers the gateway into its
// own scope and answers in the family's errors, both handed to it by the composition root. The JWT ids it remembers
// are pruned with the rest of the housekeeping.
import type { ReportingKeyService } from '../applications/reporting-keys/service.js'
import type { AccessTokenResolver } from '../identity/types.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import { LabelledCounter } from '../platform/counters.js'
import type { Executor } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import type { ErrorFamily } from '../platform/http/error-family.js'
import type { ReportingAuthFailure } from './auth/authenticate.js'
import { createMerchantAuth } from './auth/service.js'
import { reportingErrors } from './errors.js'
import type { ReportingGatewayOptions } from './gateway.js'

export interface MerchantApi {
  /** The gateway's options (its authenticator and refusal counters): `reportingGateway` registered with them. */
  readonly gateway: ReportingGatewayOptions
  /** The family's errors: `{submitTimeUtc, reason, message, details}`, and 401 `{response: {rmsg}}`. */
  readonly errors: ErrorFamily
}

export interface MerchantApiDeps {
  db: Executor
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'descendants'>
  /** OAuth access tokens, resolved by the OAuth feature's token service (the family never imports OAuth). */
  tokens: Pick<AccessTokenResolver, 'find'>
}

export function merchantApiFeature(deps: MerchantApiDeps): Feature<MerchantApi> {
  const { clock } = deps
  const failures = new LabelledCounter<ReportingAuthFailure>('reporting_authentication_failures_total', 'Reporting calls refused as unauthenticated, by reason', 'reason')
  const { authenticator, pruneJwtIds } = createMerchantAuth(deps)
  return {
    name: 'merchant-api',
    services: { gateway: { authenticator, organizations: deps.organizations, failures }, errors: reportingErrors(clock) },
    housekeeping: [{ name: 'reporting jwt ids', prune: pruneJwtIds }],
    counters: [failures],
    openapi: {
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
