// The merchant API family as one feature: reporting, webhook management and the key service are one API family,
// with one gateway (HTTP Signature, the SDK's JWT, OAuth bearer tokens; the acting organization), one error family
// and body, and one count of refusals. It has no routes: each feature of the family registers the gateway into its
// own scope and answers in the family's errors, both handed to it by the composition root. The credentials it
// remembers (JWT ids, signatures of writes) go to the platform's replay guard; its calls per credential are counted
// here, once for the whole family (auth/throttle.ts).
import type { ReportingKeyService } from '../applications/reporting-keys/service.js'
import type { AccessTokenResolver } from '../identity/types.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import { LabelledCounter } from '../platform/counters.js'
import type { Feature } from '../platform/feature.js'
import * as m0014 from '../migrations/0014_reporting_bearer_auth.js'
import type { ErrorFamily } from '../platform/http/error-family.js'
import type { ReplayGuard } from '../platform/replay-guard.js'
import { docsSignerScript, type DocsSigningKey } from './docs-signer.js'
import { createReportingAuthenticator, type ReportingAuthFailure } from './auth/authenticate.js'
import { createCallerThrottle, type MerchantApiLimits } from './auth/throttle.js'
import { reportingErrors } from './errors.js'
import type { ReportingGatewayOptions } from './gateway.js'

export interface MerchantApi {
  /** The gateway's options (its authenticator and refusal counters): `reportingGateway` registered with them. */
  readonly gateway: ReportingGatewayOptions
  /** The family's errors: `{submitTimeUtc, reason, message, details}`, and 401 `{response: {rmsg}}`. */
  readonly errors: ErrorFamily
}

export interface MerchantApiDeps {
  clock: Clock
  keys: Pick<ReportingKeyService, 'signingKey' | 'recallSigningKey' | 'certificates'>
  organizations: Pick<OrganizationService, 'find' | 'mayActFor' | 'recallMayActFor' | 'descendants'>
  /** OAuth access tokens, resolved by the OAuth feature's token service (the family never imports OAuth). */
  tokens: Pick<AccessTokenResolver, 'find' | 'recall'>
  /** The one memory of credentials already used (JWT ids, signatures of writes), pruned by the composition root. */
  replay: Pick<ReplayGuard, 'spend'>
  /** Sandbox mode only: the published keys the docs page signs "Try it out" calls with (docs-signer.ts). */
  docsSigningKeys?: readonly DocsSigningKey[]
  /** Calls a minute per credential on every route of the family (per process). */
  limits: MerchantApiLimits
}

export function merchantApiFeature(deps: MerchantApiDeps): Feature<MerchantApi> {
  const { clock } = deps
  const failures = new LabelledCounter<ReportingAuthFailure>('reporting_authentication_failures_total', 'Reporting calls refused as unauthenticated, by reason', 'reason')
  // One authenticator, so one throttle, for every scope the gateway is registered in (reporting's and the webhooks').
  const throttle = createCallerThrottle(deps.limits, clock)
  const authenticator = createReportingAuthenticator({ keys: deps.keys, organizations: deps.organizations, tokens: deps.tokens, replay: deps.replay, throttle, clock })
  return {
    name: 'merchant-api',
    services: { gateway: { authenticator, organizations: deps.organizations, failures }, errors: reportingErrors(clock) },
    counters: [failures],
    // The family's ways in besides HTTP Signature: organizations of OAuth clients, grants and merchant users, and JWT
    // certificates (the tables are oauth's, identity's and applications').
    migrations: { '0014_reporting_bearer_auth': m0014 },
    openapi: {
      ...(deps.docsSigningKeys?.length ? { docsScripts: [docsSignerScript(deps.docsSigningKeys)] } : {}),
      securitySchemes: {
        httpSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'signature',
          description: 'HTTP Signature (HmacSHA256) over host, date (or v-c-date, for a browser), request-target, digest and v-c-merchant-id, under a reporting key (finapi keys create --org)',
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
