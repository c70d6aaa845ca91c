// The banking interface as one feature: its services, its gateway and routes under /v2, its part of the OpenAPI
// document, its tables, the sandbox's customers and `finapi import`. Built by the composition root from narrowed
// dependencies.
import type { ApplicationService } from '../applications/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { DpopVerifier } from '../platform/dpop.js'
import type { Feature } from '../platform/feature.js'
import type { App } from '../platform/http/app.js'
import type { MaintenanceSwitch } from '../platform/maintenance.js'
import * as m0002 from '../migrations/0002_banking.js'
import { createAccountsService, type AccountsService } from './accounts/service.js'
import { importData, type ImportSummary, type Progress } from './accounts/import.js'
import { bankingCommands } from './cli.js'
import type { IdentityService } from '../identity/service.js'
import { createAuthService, type AuthService } from './auth/service.js'
import { bankingErrors } from './errors.js'
import { gateway } from './gateway/plugin.js'
import { accountRoutes } from './accounts/routes.js'
import { ensureSandboxCustomers } from './accounts/sandbox.js'
import { authRoutes } from './auth/routes.js'
import { tokenCheck } from './auth/token-check.js'
import { SANDBOX_CUSTOMER_1_ID } from './sandbox-data.js'

export interface BankingServices {
  auth: AuthService
  accounts: AccountsService
  /** Loads an operator's file of customers, credentials, accounts and exchange rates, all or nothing (`finapi import`). */
  importData(data: unknown, onProgress?: Progress): Promise<ImportSummary>
}

/** Routes registered in the banking scope, behind its gateway, beside the banking routes (tests' probes, whole paths under /v2). */
export type V2Routes = (v2: App) => Promise<void>

export interface BankingDeps {
  db: Pick<Db, 'kysely'>
  clock: Clock
  applications: Pick<ApplicationService, 'authenticate' | 'recall'>
  maintenance: Pick<MaintenanceSwitch, 'isOn'>
  /** Sign-in, sessions, soft credentials, and Authorization tokens of every kind (OAuth access tokens too). */
  identity: IdentityService
  settings: {
    /** Sandbox without strict tokens: any Authorization string that is no session reads as the first sandbox customer. */
    lenientTokens: boolean
    rateLimitPerMinute: number
    /** Sandbox: throttle per key and source address, so one client's flood does not deny the shared key to others. */
    throttlePerSource: boolean
    /** PUBLIC_URL: the base of the URL a DPoP proof names (htu); derived from each request when unset. */
    publicUrl?: string
  }
  /** Checks the DPoP proofs that come with DPoP-bound OAuth access tokens (RFC 9449); passed in at wiring. */
  dpop?: DpopVerifier
  extraRoutes?: readonly V2Routes[]
}

const DESCRIPTION = `Account-holder banking interface (\`/v2\`).

Every \`/v2\` request carries \`x-svc-key\` (the application key) and \`User-Agent\`, and the query parameter \`v=1\`.
Send \`X-CorrelationID\` (or \`x-svc-correlationid\`) to trace a call; the response echoes it as \`X-CorrelationID\`,
or a generated UUID when none was sent. Every body, errors included, carries \`status: {code, message}\`.`

export function bankingFeature(deps: BankingDeps): Feature<BankingServices> {
  const { db, clock } = deps
  const auth = createAuthService({
    identity: deps.identity,
    dpop: deps.dpop,
    options: { lenientCustomerId: deps.settings.lenientTokens ? SANDBOX_CUSTOMER_1_ID : undefined },
  })
  const accounts = createAccountsService({ db })
  return {
    name: 'banking',
    services: { auth, accounts, importData: (data, onProgress) => importData({ db, clock, identity: deps.identity.importer }, data, onProgress) },
    http: {
      prefixes: ['/v2'],
      errors: bankingErrors,
      async register(v2) {
        await v2.register(gateway, {
          applications: deps.applications,
          maintenance: deps.maintenance,
          rateLimitPerMinute: deps.settings.rateLimitPerMinute,
          throttlePerSource: deps.settings.throttlePerSource,
          clock,
        })
        const check = tokenCheck(v2, auth, { publicUrl: deps.settings.publicUrl })
        await authRoutes(v2, { auth, check })
        await accountRoutes(v2, { accounts, check })
        for (const routes of deps.extraRoutes ?? []) await routes(v2)
      },
    },
    // 0002 also made identity's customers, credentials and sessions, which were banking's then.
    migrations: { '0002_banking': m0002 },
    sandbox: { seed: () => ensureSandboxCustomers({ db, clock, identity: deps.identity }) },
    commands: bankingCommands,
    openapi: {
      description: DESCRIPTION,
      securitySchemes: {
        svcKey: { type: 'apiKey', in: 'header', name: 'x-svc-key', description: 'Application key' },
        authorization: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The token from POST /v2/auth (loginResponse.tokens[0].value), sent bare, without "Bearer "; or an OAuth access token; a DPoP-bound one as "DPoP <token>" with a DPoP header proof (RFC 9449) for the request\'s method and URL (API-448 otherwise)',
        },
      },
    },
  }
}
