// The merchant console (issue 24) as one descriptor: /console, server-rendered pages for merchant users, in every
// mode, in the same process as the API. It signs in through identity (the consent page's verify and throttle),
// acts for an organization under the API's organizationId rule (organizations.mayActFor), and reads and writes
// through the same services the API's routes use. Its sessions are its own table, pruned by housekeeping.
import type { IdentityService } from '../identity/service.js'
import type { MerchantUserService } from '../identity/merchant-users/service.js'
import * as m0021 from '../migrations/0021_console_sessions.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import { consoleErrors } from './errors.js'
import { consoleOperators, type ConsoleOperatorDeps } from './operators/routes.js'
import { consoleOverview, type ConsoleOverviewDeps } from './overview/routes.js'
import { consoleOnDemand, type ConsoleOnDemandDeps } from './on-demand/routes.js'
import { consoleSandbox, type ConsoleSandboxDeps } from './sandbox/routes.js'
import { PAGE_HEADERS } from './layout.js'
import { consoleReports, type ConsoleReportDeps } from './reports/routes.js'
import { consoleKeys, type ConsoleKeyDeps } from './keys/routes.js'
import { consoleRequests, type ConsoleRequestDeps } from './requests/routes.js'
import { consoleBase } from './routes.js'
import { createConsoleSessionService, type ConsoleSessionService, type ConsoleSessionSettings, type SignInThrottle } from './sessions/service.js'
import { consoleSubscriptions, type ConsoleSubscriptionDeps } from './subscriptions/routes.js'
import { consoleWebhooks, type ConsoleWebhookDeps } from './webhooks/routes.js'

export interface ConsoleServices {
  sessions: ConsoleSessionService
}

export interface ConsoleDeps extends ConsoleSubscriptionDeps, ConsoleReportDeps, ConsoleOverviewDeps, ConsoleKeyDeps, ConsoleRequestDeps, ConsoleWebhookDeps, ConsoleOperatorDeps {
  onDemand: ConsoleOnDemandDeps['onDemand']
  /** Sandbox mode only: the sandbox page's services (its routes exist only then). */
  sandbox?: ConsoleSandboxDeps
  db: Pick<Db, 'kysely'>
  clock: Clock
  secretsKey: string
  settings: ConsoleSessionSettings
  identity: Pick<IdentityService, 'verify' | 'listCredentials'>
  merchantUsers: Pick<MerchantUserService, 'organizationOf' | 'isOperator'>
  organizations: Pick<OrganizationService, 'mayActFor' | 'descendants' | 'find'>
  /** The consent page's sign-in throttle (built with OAuth's createClientThrottle and its limits). */
  throttle: SignInThrottle
  sandboxSignIn?: { username: string; password: string }
}

export function consoleFeature(deps: ConsoleDeps): Feature<ConsoleServices> {
  const sessions = createConsoleSessionService(deps)
  return {
    name: 'console',
    services: { sessions },
    http: {
      errors: { ...consoleErrors, headers: PAGE_HEADERS },
      prefixes: ['/console'],
      async register(scope) {
        await consoleBase(scope, { sessions, sandboxSignIn: deps.sandboxSignIn, maxAgeSeconds: deps.settings.maxHours * 3600 })
        await consoleSubscriptions(scope, deps)
        await consoleReports(scope, deps)
        await consoleOverview(scope, deps)
        await consoleOnDemand(scope, deps)
        if (deps.sandbox) await consoleSandbox(scope, deps.sandbox)
        await consoleKeys(scope, deps)
        await consoleRequests(scope, deps)
        await consoleWebhooks(scope, deps)
        await consoleOperators(scope, deps)
      },
    },
    housekeeping: [{ name: 'console sessions', prune: () => sessions.prune() }],
    migrations: { '0021_console_sessions': m0021 },
  }
}
