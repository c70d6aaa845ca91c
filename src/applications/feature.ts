// Application keys (banking's x-svc-key) and organizations' reporting keys and JWT certificates (the merchant API
// family's), as one descriptor. No routes of their own (operators manage them with `finapi keys`); the sandbox's
// shared key and published reporting keys, which a production database must not keep active. Their tables were
// made by migrations other modules list (0001 the platform's, 0010 organizations', 0014 the merchant API's); its own,
// 0027, makes PostgreSQL tell every server when a reporting key changes.
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import * as m0027 from '../migrations/0027_reporting_key_changes.js'
import * as m0029 from '../migrations/0029_application_changes.js'
import { activeSandboxKeys, ensureSandboxKeys } from './reporting-keys/sandbox.js'
import { createReportingKeyService, type ReportingKeyService } from './reporting-keys/service.js'
import { createApplicationService, type ApplicationService } from './service.js'

export interface ApplicationsServices {
  applications: ApplicationService
  /** HTTP Signature keys of organizations, secrets sealed, and their JWT certificates. */
  reportingKeys: ReportingKeyService
}

export interface ApplicationsDeps {
  db: Pick<Db, 'kysely' | 'changes'>
  clock: Clock
  secretsKey: string
  organizations: Pick<OrganizationService, 'find'>
  /** Sandbox mode: the shared application key everyone uses (SANDBOX_API_KEY). */
  sandboxApiKey?: string
}

export function applicationsFeature(deps: ApplicationsDeps): Feature<ApplicationsServices> {
  const applications = createApplicationService(deps)
  const reportingKeys = createReportingKeyService(deps)
  return {
    name: 'applications',
    services: { applications, reportingKeys },
    migrations: { '0027_reporting_key_changes': m0027, '0029_application_changes': m0029 },
    sandbox: {
      async seed() {
        if (deps.sandboxApiKey) await applications.ensureSandboxKey(deps.sandboxApiKey)
        // After the organizations they belong to (an earlier feature's data).
        await ensureSandboxKeys(reportingKeys)
      },
      exposed: async () => (await activeSandboxKeys(reportingKeys)).map((id) => `reporting key ${id} (finapi keys revoke ${id})`),
    },
  }
}
