// The sandbox's reporting clock as a feature of its own prefix, /sandbox/v1, authenticated exactly like a
// reporting call (the same gateway) and answering in the reporting error family. Mounted in sandbox mode only.
import type { Clock } from '../platform/clock.js'
import type { Feature } from '../platform/feature.js'
import { reportingErrors } from '../merchant-api/errors.js'
import { reportingGateway, type ReportingGatewayOptions } from '../merchant-api/gateway.js'
import { clockRoutes, type SandboxClock } from './sandbox-clock/routes.js'

export function reportingSandboxFeature(deps: {
  clock: Clock
  /** The reporting feature's own gateway options: the same authenticator and refusal counters. */
  gateway: ReportingGatewayOptions
  sandboxClock: SandboxClock
}): Feature {
  return {
    name: 'reporting-sandbox',
    services: {},
    http: {
      prefixes: ['/sandbox/v1'],
      errors: reportingErrors(deps.clock),
      async register(scope) {
        await scope.register(reportingGateway, deps.gateway)
        await clockRoutes(scope, { sandboxClock: deps.sandboxClock })
      },
    },
  }
}
